package protocols

import (
	"testing"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// TestFaultTableComplete fails when a fault kind is declared without a
// generator, an injector, a shrink rule or a citation, and proves each
// citation: a run with the kind's generated faults records an event the
// checker's citation (KindSpec.Cites) recognizes.
func TestFaultTableComplete(t *testing.T) {
	for _, k := range trace.Kinds() {
		t.Run(k.Name, func(t *testing.T) {
			switch {
			case !Generates(k.Name):
				t.Fatal("no generator")
			case !sim.Injects(k.Name):
				t.Fatal("no injector")
			case k.Shrink&trace.ShrinkDrop == 0:
				t.Fatal("shrinking may not drop it")
			case k.CiteKind == "":
				t.Fatal("no citation")
			case k.Target == "":
				t.Fatal("no target syntax")
			}
			if cited(t, k) == 0 {
				t.Fatalf("no run of 20 seeds recorded an event citing %s", k.Name)
			}
		})
	}
}

func cited(t *testing.T, k trace.KindSpec) int {
	n := 0
	for seed := uint64(1); seed <= 20 && n == 0; seed++ {
		sc := Scenario{Seed: seed, Protocol: "setnx-lua-del", FaultKinds: []string{k.Name}, Topology: k.Topology, AnchorPct: -1}
		_, tr, err := Run(sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range tr.Events {
			if k.Cites(e) {
				n++
			}
		}
	}
	return n
}

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in    string
		party []string
		sep   string
		bad   bool
	}{
		{"c1", []string{"c1"}, "", false},
		{"c1->redis", []string{"c1", "redis"}, "->", false},
		{"redis<->sentinel", []string{"redis", "sentinel"}, "<->", false},
		{"", nil, "", true},
		{"->redis", nil, "", true},
		{"a->b->c", nil, "", true},
	} {
		got, err := trace.ParseTarget(tc.in)
		if (err != nil) != tc.bad {
			t.Fatalf("%q: err %v", tc.in, err)
		}
		if tc.bad {
			continue
		}
		if got.String() != tc.in || got.Sep != tc.sep || len(got.Parties) != len(tc.party) || got.Parties[0] != tc.party[0] {
			t.Fatalf("%q parsed as %+v", tc.in, got)
		}
	}
}

// TestFaultTextRoundTrip: every generated fault, anchored or not, reads
// back from its text form (the --fault flag) unchanged.
func TestFaultTextRoundTrip(t *testing.T) {
	n := 0
	for seed := uint64(1); seed <= 30; seed++ {
		sc := Scenario{Seed: seed, Protocol: "redlock", FaultKinds: trace.KindNames(), AnchorPct: 100}
		faults, err := GenerateFaults(mustNormalizeTopology(t, sc))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range faults {
			text := trace.FormatFault(f)
			back, err := trace.ParseFault(text)
			if err != nil || trace.FormatFault(back) != text || (f.Anchor == nil) != (back.Anchor == nil) ||
				f.Anchor != nil && *f.Anchor != *back.Anchor {
				t.Fatalf("%s read back as %+v (%v)", text, back, err)
			}
			if f.Anchor != nil {
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no anchored fault drawn")
	}
	for _, bad := range []string{"gc-pause:c1@0+5~c1/acquire#1+0", "gc-pause:c1@0+5~c1/acquire/later#1+0", "gc-pause:c1@0+5~c1/acquire/invoke#0+0"} {
		if _, err := trace.ParseFault(bad); err == nil {
			t.Fatalf("%q accepted", bad)
		}
	}
}

func mustNormalizeTopology(t *testing.T, sc Scenario) Scenario {
	t.Helper()
	kinds := sc.FaultKinds
	sc.FaultKinds = nil
	n, err := sc.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	n.FaultKinds = kinds
	return n
}
