package explore

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

var exploreBase = protocols.Scenario{Protocol: "setnx-del", Workload: "unique-name", FaultKinds: []string{"gc-pause"}}

func explore(t *testing.T, cfg ExploreConfig) *Summary {
	t.Helper()
	s, err := Explore(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// same compares what must not depend on scheduling: counts and first seeds.
func same(t *testing.T, what string, a, b *Summary) {
	t.Helper()
	if a.Runs != b.Runs || a.Violating != b.Violating || a.Errors != b.Errors || len(a.Causes) != len(b.Causes) {
		t.Fatalf("%s: %d/%d/%d vs %d/%d/%d runs/violating/errors", what, a.Runs, a.Violating, a.Errors, b.Runs, b.Violating, b.Errors)
	}
	if a.LockViolated != b.LockViolated || a.DataLost != b.DataLost || a.Unknown != b.Unknown {
		t.Fatalf("%s: %d/%d/%d vs %d/%d/%d lock-violated/data-lost/unknown runs", what,
			a.LockViolated, a.DataLost, a.Unknown, b.LockViolated, b.DataLost, b.Unknown)
	}
	for i := range a.Causes {
		ca, cb := a.Causes[i], b.Causes[i]
		if ca.Cause != cb.Cause || ca.Runs != cb.Runs || ca.FirstSeed != cb.FirstSeed {
			t.Fatalf("%s: cause %+v vs %+v", what, ca, cb)
		}
	}
}

func TestExploreIndependentOfWorkersAndShards(t *testing.T) {
	runs := 120
	one := explore(t, ExploreConfig{Base: exploreBase, Runs: runs, SeedStart: 1, Workers: 1})
	four := explore(t, ExploreConfig{Base: exploreBase, Runs: runs, SeedStart: 1, Workers: 4})
	same(t, "1 vs 4 workers", one, four)
	if one.Violating == 0 {
		t.Fatal("setnx-del under gc-pause should violate in some of 120 runs")
	}
	var parts []*Summary
	for k := 1; k <= 3; k++ {
		parts = append(parts, explore(t, ExploreConfig{Base: exploreBase, Runs: runs / 3, SeedStart: 1, Shard: k, Shards: 3}))
	}
	merged, err := merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "3 shards merged vs unsharded", one, merged)
	if !reflect.DeepEqual(one.Plots, merged.Plots) || !reflect.DeepEqual(one.Damage, merged.Damage) {
		t.Fatalf("merged plots or damage differ from the unsharded ones:\n%+v\n%+v", one.Damage, merged.Damage)
	}
	if merged.LockViolated != one.LockViolated || merged.DataLost != one.DataLost {
		t.Fatalf("merged %d/%d lock-violated/data-lost runs, unsharded %d/%d", merged.LockViolated, merged.DataLost,
			one.LockViolated, one.DataLost)
	}
}

func TestExploreSavesFirstTraceOfEachCause(t *testing.T) {
	dir := t.TempDir()
	s := explore(t, ExploreConfig{Base: exploreBase, Runs: 60, SeedStart: 1, Out: dir})
	if len(s.Causes) == 0 {
		t.Fatal("no cause found")
	}
	for _, c := range s.Causes {
		f, err := traces.Read(c.Trace)
		if err != nil {
			t.Fatal(err)
		}
		if f.Scenario.Seed != c.FirstSeed {
			t.Fatalf("%s: saved seed %d, first seed %d", c.Cause, f.Scenario.Seed, c.FirstSeed)
		}
	}
	if _, err := ReadSummary(filepath.Join(dir, "summary.json")); err != nil {
		t.Fatal(err)
	}
}

func TestExploreUntilFirstStops(t *testing.T) {
	s := explore(t, ExploreConfig{Base: exploreBase, Runs: 5000, SeedStart: 1, UntilFirst: true, Workers: 2})
	if s.Violating == 0 || s.Runs >= 5000 {
		t.Fatalf("until-first ran %d runs with %d violating", s.Runs, s.Violating)
	}
}

func TestExploreCancelKeepsPartialSummary(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Explore(ctx, ExploreConfig{Base: exploreBase, Runs: 100000, SeedStart: 1, Workers: 2},
		func(done int, _ *Summary) {
			if done == 50 {
				cancel()
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Interrupted || s.Runs < 50 || s.Runs > 100 {
		t.Fatalf("interrupted=%v after %d runs", s.Interrupted, s.Runs)
	}
}

func TestShrinkSetnxDelPauseToTwoClientsOnePause(t *testing.T) {
	var f *traces.File
	for seed := uint64(1); f == nil && seed < 200; seed++ {
		o, err := traces.Execute(protocols.Scenario{Seed: seed, Protocol: "setnx-del", Workload: "unique-name",
			Clients: 4, Ops: 3, FaultKinds: []string{"gc-pause"}, Intensity: 2})
		if err != nil {
			t.Fatal(err)
		}
		if o.File.Report.Verdict == checker.VerdictViolation && len(o.File.Scenario.Faults) > 3 {
			f = o.File
		}
	}
	if f == nil {
		t.Fatal("no failing run to shrink")
	}
	r, err := Shrink(f, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if r.After.Clients != 2 || r.After.Faults != 1 || r.File.Scenario.Faults[0].Kind != trace.FaultGCPause {
		t.Fatalf("shrunk from %v to %v: %+v", r.Before, r.After, r.File.Scenario.Faults)
	}
	if r.Cause != checker.CausePrematureExpiry {
		t.Fatalf("cause %s", r.Cause)
	}
	o, err := traces.Execute(r.File.Scenario)
	if err != nil || o.File.TraceSHA256 != r.File.TraceSHA256 {
		t.Fatalf("shrunk trace does not replay: %v", err)
	}
	t.Logf("shrunk in %d runs: %v -> %v", r.Runs, r.Before, r.After)
}

func TestShrinkRefusesTraceWithoutViolation(t *testing.T) {
	o, err := traces.Execute(protocols.Scenario{Seed: 1, Protocol: "setnx-lua-del", Workload: "stock"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Shrink(o.File, 10); err == nil {
		t.Fatal("want an error")
	}
}

// Redisson 3.17.0 fails a lock call when fewer replicas than it counts
// as available acknowledged it, and counts what the sentinel reports: a
// partition that cuts the promotable replica from the master and the
// sentinel from the other leaves none available, the acquire goes
// unchecked, and a crash then promotes the stale replica (issue 12).
func TestSyncedCheckLocksLoseAKeyToAStalePromotion(t *testing.T) {
	for _, p := range []string{"redisson-3.17.0", "redisson-trylock"} {
		base := protocols.Scenario{Protocol: p, Workload: "unique-name", Swarm: true,
			FaultKinds: []string{trace.FaultFailover, trace.FaultPartition}}
		s := explore(t, ExploreConfig{Base: base, Runs: 200, SeedStart: 1, UntilFirst: true})
		if len(s.Faults) != 2 {
			t.Errorf("%s: the summary names %v, not the two kinds allowed", p, s.Faults)
		}
		found := false
		for _, c := range s.Causes {
			found = found || c.Property == checker.PropMutex && c.Cause == checker.CauseLostAfterFailover
		}
		if !found {
			t.Errorf("%s under failover,partition: no lost-after-failover in %d runs (%+v)", p, s.Runs, s.Causes)
		}
	}
}

// A matrix cell whose runs an event budget stopped in part is judged on
// the others: its rate and label are over the judged runs, it says how
// many were not judged, and, with no unsafe run, it is inconclusive and
// listed as such.
func TestCellOfRunsNotJudged(t *testing.T) {
	unsafe := map[bool]bool{}
	for _, cell := range [][2]string{{"setnx-lua-del", "none"}, {"setnx-del", "gc-pause"}} {
		p := cell[0]
		base := cellScenario(p, "unique-name", cell[1])
		base.MaxEvents = 400
		s := explore(t, ExploreConfig{Base: base, Runs: 12, SeedStart: 1})
		unknown := 0
		for i := range 12 {
			sc := base
			sc.Seed = uint64(1 + i)
			o, err := traces.Evaluate(sc)
			if err != nil {
				t.Fatal(err)
			}
			if o.File.Report.Verdict == checker.VerdictUnknown && !judge(o.File.Report, o.File.Trace, false).Unsafe {
				unknown++
			}
		}
		if unknown == 0 || unknown == 12 || s.Unknown != unknown {
			t.Fatalf("%s: %d of 12 runs not judged, explore counts %d: want some", p, unknown, s.Unknown)
		}
		c := Cell{Protocol: p, Fault: cell[1]}
		c.fill(s)
		unsafe[c.Violating > 0] = true
		judged := 12 - unknown
		if c.Evidence.Runs != judged || c.Rate() != float64(c.Violating)/float64(judged) || c.Unknown != unknown {
			t.Errorf("%s: cell %d judged, %d not, rate %v; want %d judged, %d not", p, c.Evidence.Runs, c.Unknown, c.Rate(), judged, unknown)
		}
		m := &Matrix{Workload: "unique-name", Runs: 12, FirstSeed: 1, Faults: []string{cell[1]}, Protocols: []string{p}, Rows: [][]Cell{{c}}}
		text := m.Text()
		if !strings.Contains(c.label(), fmt.Sprintf("/%d @", judged)) && !strings.HasPrefix(c.label(), "<") ||
			!strings.Contains(c.label(), fmt.Sprintf(", %d not judged", unknown)) || !strings.Contains(text, c.label()) {
			t.Errorf("%s: label %q, want the judged runs and %d not judged", p, c.label(), unknown)
		}
		if c.Violating == 0 && (c.Verdict != CellUnknown || !strings.Contains(text, "inconclusive cells:\n  "+p)) {
			t.Errorf("%s: no unsafe run and %d not judged, but the cell is %s:\n%s", p, unknown, c.Verdict, text)
		}
	}
	if !unsafe[true] || !unsafe[false] {
		t.Errorf("want an unsafe cell and one with no unsafe run: %v", unsafe)
	}
}

// A stalled renewal loses the lock of a holder that works longer than
// the lease (redisson#5698): explore's cell for watchdog-stall finds it,
// with that reason, within a few seeds of every lock that renews in the
// background, catalog or described.
func TestStallFindsRenewalStalledOnEveryRenewingLock(t *testing.T) {
	f, err := protocols.LoadProtocolFile("../../protocols/testdata/protocol-files/setnx-px-lua-refresh.json")
	if err != nil {
		t.Fatal(err)
	}
	file := cellScenario("", "", trace.FaultWatchdogStall)
	file.ProtocolFile = f
	bases := []protocols.Scenario{file}
	for _, p := range protocols.Protocols() {
		if p.Renews {
			bases = append(bases, cellScenario(p.Name, "", trace.FaultWatchdogStall))
		}
	}
	const seeds = 20
	for _, base := range bases {
		found := uint64(0)
		for seed := uint64(1); seed <= seeds && found == 0; seed++ {
			sc := base
			sc.Seed = seed
			o, err := traces.Evaluate(sc)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range o.File.Report.Violations {
				if v.Cause == checker.CausePrematureExpiry && v.Reason == checker.ReasonRenewalStalled {
					found = seed
				}
			}
		}
		if found == 0 {
			t.Errorf("%s under watchdog-stall: no premature-expiry (renewal stalled) in seeds 1 to %d", cmp.Or(base.Protocol, f.Path), seeds)
		}
	}
}
