package traces

import (
	"fmt"
	"strings"
	"testing"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// TestFiringsAreWhenFaultsHappened: over drawn schedules of every fault
// kind, half of them anchored, a fault's recorded start is its schedule's
// at_ms when it is not anchored, and exactly its anchor's offset after
// the run recorded the anchor when it is; a fault that recorded nothing
// but was due before the run ended started at that time all the same.
func TestFiringsAreWhenFaultsHappened(t *testing.T) {
	recorded, anchored := 0, 0
	for _, proto := range []string{"setnx-del", "redisson-latest", "redlock"} {
		for seed := uint64(1); seed <= 12; seed++ {
			sc := protocols.Scenario{Protocol: proto, Seed: seed, FaultKinds: trace.KindNames(), Swarm: true, AnchorPct: 50}
			o, err := Execute(sc)
			if err != nil {
				t.Fatal(err)
			}
			f := o.File
			end := f.Trace.Stats.SimNs
			fired := Firings(f.Scenario.Faults, f.Trace)
			for i, flt := range f.Scenario.Faults {
				at, name := fired[i].AtNs, fmt.Sprintf("%s seed %d fault #%d %s", proto, seed, i+1, trace.FormatFault(flt))
				want := flt.AtMs * 1e6
				if flt.Anchor != nil {
					want = -1
					for _, e := range f.Trace.Events {
						if e.Fault == i+1 && e.Kind == trace.EvFault && strings.HasPrefix(e.Detail, "anchor: ") {
							want = e.T + flt.Anchor.AfterMs*1e6
							break
						}
					}
				}
				if want >= end && !fired[i].Recorded {
					want = -1
				}
				if at != want {
					t.Errorf("%s: started at %d ns, want %d (run of %d ns)", name, at, want, end)
				}
				if fired[i].Recorded {
					recorded++
					if flt.Anchor != nil {
						anchored++
					}
				}
			}
		}
	}
	if recorded < 100 || anchored < 20 {
		t.Fatalf("only %d faults recorded, %d of them anchored", recorded, anchored)
	}
}

// TestAnchoredFaultIsShownWhenItFired: an anchored GC pause is described
// at the time it started, which is its offset after the client's first
// acquire returned (read from the history, not from the fault events);
// one anchored to an acquire that never succeeds (c1 loses every race in
// this run) is described as never started.
func TestAnchoredFaultIsShownWhenItFired(t *testing.T) {
	flt, err := trace.ParseFault("gc-pause:c2@0+8000~c2/acquire/return/ok#1+2500")
	if err != nil {
		t.Fatal(err)
	}
	unfired, _ := trace.ParseFault("gc-pause:c1@0+500~c1/acquire/return/ok#1+0")
	o, err := Execute(protocols.Scenario{Protocol: "setnx-del", Seed: 1, LeaseMs: 5000, Faults: []trace.Fault{flt, unfired}})
	if err != nil {
		t.Fatal(err)
	}
	var acquired int64 = -1
	for _, op := range o.File.Trace.Ops {
		if op.Client == "c2/t1" && op.Kind == model.OpAcquire && op.Result == model.ResOK {
			acquired = op.Return
			break
		}
	}
	if acquired < 0 {
		t.Fatal("c2 never acquired")
	}
	want := fmt.Sprintf("gc-pause c2 at t=%.1f s for 8000 ms, 2500 ms after c2 acquired", float64(acquired+2500e6)/1e9)
	got := DescribeFaults(o.File)
	if len(got) != 2 || got[0] != want {
		t.Fatalf("DescribeFaults = %q, want %q first", got, want)
	}
	if strings.Contains(got[0], "t=0.0 s") {
		t.Fatalf("the pause is shown at its at_ms: %q", got[0])
	}
	if want := "gc-pause c1 for 500 ms never started: it was due as c1 acquired, which did not happen"; got[1] != want {
		t.Errorf("unfired: %q, want %q", got[1], want)
	}
}

// TestZeroDurationSaysWhatItMeans: a fault of no length says so (a
// duration 0 is the fault's length, not a default), a client crash of
// duration 0 says it never restarts, and a kind without a duration
// (clock-jump) says nothing of one.
func TestZeroDurationSaysWhatItMeans(t *testing.T) {
	for _, c := range []struct{ fault, want string }{
		{"gc-pause:c1@1000+0", "gc-pause c1 at t=1.0 s for 0 ms (it ends as it starts)"},
		{"client-crash:c1@1000+0", "client-crash c1 at t=1.0 s for good (duration 0: it never restarts)"},
		{"clock-jump:redis@1000+0=5000", "clock-jump redis at t=1.0 s (value 5000)"},
	} {
		f, err := trace.ParseFault(c.fault)
		if err != nil {
			t.Fatal(err)
		}
		if got := describeFault(f, Firing{AtNs: 1e9, Recorded: true}, 10e9); got != c.want {
			t.Errorf("%s: %q, want %q", c.fault, got, c.want)
		}
	}
}
