package traces

import (
	"flag"
	"fmt"
	"testing"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// localLocks are the catalog's locks that never touch Redis, for which
// local-lock-only is the honest cause.
var localLocks = map[string]bool{"local-mutex": true}

// TestEveryViolationExplained runs every catalog protocol under every
// fault kind, and under all of them at once, on each topology it
// supports, and fails on a violation the
// checker cannot explain (unexplained is a checker defect) and on a lock
// that uses Redis reported as living only in each process.
func TestEveryViolationExplained(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("runs every protocol under every fault kind")
	}
	seeds := uint64(*sweepSeeds)
	runs, violating := 0, 0
	for _, p := range protocols.Protocols() {
		for _, topo := range protocols.SupportedTopologies(p) {
			mixes := [][]string{trace.KindNames()}
			for _, kind := range trace.KindNames() {
				mixes = append(mixes, []string{kind})
			}
			for _, kinds := range mixes {
				for seed := uint64(1); seed <= seeds; seed++ {
					sc := protocols.Scenario{Seed: seed, Protocol: p.Name, Topology: topo, FaultKinds: kinds}
					o, err := Execute(sc)
					if err != nil {
						continue // a fault kind the topology cannot have
					}
					runs++
					if o.File.Report.Verdict == checker.VerdictViolation {
						violating++
					}
					for _, v := range o.File.Report.Violations {
						bad := v.Cause == checker.CauseUnexplained || v.Cause == checker.CauseLocalLockOnly && !localLocks[p.Name]
						if bad {
							t.Errorf("%s: %s %s: %s", replayLine(sc), v.Property, v.Cause, v.Explanation)
						}
					}
				}
			}
		}
	}
	t.Logf("%d runs, %d violating", runs, violating)
}

func replayLine(sc protocols.Scenario) string {
	return fmt.Sprintf("locksim run --protocol %s --topology %s --faults %v --seed %d", sc.Protocol, sc.Topology, sc.FaultKinds, sc.Seed)
}

var sweepSeeds = flag.Int("sweep-seeds", 1, "seeds per protocol, topology and fault kind in TestEveryViolationExplained")

var livenessRuns = flag.Int("liveness-runs", 20, "fault-free runs per protocol in TestLivenessNoFalseAlarms")

// TestLivenessNoFalseAlarms runs every catalog protocol without faults,
// liveness checked: no run may break liveness, nor anything else unless
// the lock lives only in each process.
func TestLivenessNoFalseAlarms(t *testing.T) {
	runs := *livenessRuns
	if testing.Short() || raceEnabled {
		runs = 3
	}
	total := 0
	for _, p := range protocols.Protocols() {
		for seed := uint64(1); seed <= uint64(runs); seed++ {
			sc := protocols.Scenario{Seed: seed, Protocol: p.Name, Liveness: true}
			o, err := Execute(sc)
			if err != nil {
				t.Fatal(err)
			}
			total++
			for _, v := range o.File.Report.Violations {
				if v.Property == checker.PropLiveness || !localLocks[p.Name] {
					t.Errorf("%s: %s %s: %s", replayLine(sc), v.Property, v.Cause, v.Explanation)
				}
			}
		}
	}
	t.Logf("%d fault-free runs with liveness checked", total)
}
