package explore

import (
	"context"
	"fmt"
	"testing"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces"
)

// A protocol file that says what a catalog protocol does is that
// protocol: explore over the same seeds gives the same verdict and the
// same counts, and each run the same trace event for event (the file's
// commands are the catalog's, its token drawn from the same stream).
// The full size, 1,000 seeds per fault kind as issue 33 asks, runs
// without the race detector; under it, 100 seeds.
func TestProtocolFileEquivalentToCatalog(t *testing.T) {
	runs := 1000
	if raceEnabled || testing.Short() {
		runs = 100
	}
	for _, c := range []struct{ catalog, file string }{
		{"setnx-lua-del", "setnx-lua-del.json"},
		{"setnx-del", "setnx-del.json"},
	} {
		f, err := protocols.LoadProtocolFile("../../protocols/testdata/protocol-files/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range []string{"gc-pause", "failover"} {
			t.Run(c.catalog+"/"+kind, func(t *testing.T) {
				cat := cellScenario(c.catalog, "", kind)
				file := cellScenario("", "", kind)
				file.ProtocolFile = f
				explored := func(base protocols.Scenario) *Summary {
					s, err := Explore(context.Background(), ExploreConfig{Base: base, Runs: runs, SeedStart: 1}, nil)
					if err != nil {
						t.Fatal(err)
					}
					return s
				}
				a, b := explored(cat), explored(file)
				if a.Verdict.Verdict != b.Verdict.Verdict || counts(a) != counts(b) {
					t.Fatalf("catalog %s: %s, %s\nfile %s: %s, %s", c.catalog, a.Verdict.Text, counts(a), f.Description.Name, b.Verdict.Text, counts(b))
				}
				if a.UnsafeRuns == 0 && c.catalog == "setnx-del" && kind == "gc-pause" {
					t.Fatalf("setnx-del under gc-pause found safe: the comparison shows nothing")
				}
				t.Logf("both: %s; %s", a.Verdict.Text, counts(a))
				// The same traces, seed by seed, on a sample of the seeds.
				for seed := uint64(1); seed <= uint64(runs); seed += 10 {
					cat.Seed, file.Seed = seed, seed
					x, err := traces.Evaluate(cat)
					if err != nil {
						t.Fatal(err)
					}
					y, err := traces.Evaluate(file)
					if err != nil {
						t.Fatal(err)
					}
					if hx, hy := x.File.Trace.Hash(), y.File.Trace.Hash(); hx != hy {
						t.Fatalf("seed %d: catalog trace %s, file trace %s", seed, hx, hy)
					}
				}
			})
		}
	}
}

// counts is a summary's verdict counts and causes.
func counts(s *Summary) string {
	out := fmt.Sprintf("runs %d, violating %d, unsafe %d, data loss %d, unknown %d, errors %d, causes",
		s.Runs, s.Violating, s.UnsafeRuns, s.DataLossRuns, s.Unknown, s.Errors)
	for _, c := range s.Causes {
		out += fmt.Sprintf(" %s/%s %d (first seed %d)", c.Property, c.Cause, c.Runs, c.FirstSeed)
	}
	return out
}

// A described lock with a renewal renews: the description of
// setnx-px-lua-refresh (its refresh every 3,333 ms where the catalog's
// sleeps a third of the lease, 3,333.3 ms) records renewals and reaches
// the catalog protocol's verdict under gc-pause and failover.
func TestProtocolFileRenews(t *testing.T) {
	f, err := protocols.LoadProtocolFile("../../protocols/testdata/protocol-files/setnx-px-lua-refresh.json")
	if err != nil {
		t.Fatal(err)
	}
	sc := protocols.Scenario{Seed: 1, ProtocolFile: f, WorkMs: 12000}
	o, err := traces.Evaluate(sc)
	if err != nil {
		t.Fatal(err)
	}
	renewals := 0
	for _, op := range o.File.Trace.Ops {
		if op.Kind == model.OpRenew && op.Result == model.ResOK {
			renewals++
		}
	}
	if renewals == 0 || o.File.Report.Verdict != "ok" {
		t.Fatalf("a 12 s hold of a 10 s lease renewed %d times; verdict %s", renewals, o.File.Report.Verdict)
	}
	for _, kind := range []string{"gc-pause", "failover"} {
		cat := cellScenario("setnx-px-lua-refresh", "", kind)
		file := cellScenario("", "", kind)
		file.ProtocolFile = f
		a, err := Explore(context.Background(), ExploreConfig{Base: cat, Runs: 50, SeedStart: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Explore(context.Background(), ExploreConfig{Base: file, Runs: 50, SeedStart: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a.Verdict.Verdict != b.Verdict.Verdict {
			t.Fatalf("%s: catalog %s; file %s", kind, a.Verdict.Text, b.Verdict.Text)
		}
		t.Logf("%s: catalog %s; file %s", kind, counts(a), counts(b))
	}
}
