package sim_test

import (
	"testing"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// Ghosts take the steps the disarmed timers' own events took: every
// protocol under every fault kind, cut short by budgets that end runs
// among those steps, gives the same trace and the same budget either way.
func TestGhostsTakeTheDisarmedTimersSteps(t *testing.T) {
	seeds := uint64(4)
	if testing.Short() {
		seeds = 2
	}
	for _, p := range protocols.Protocols() {
		for seed := uint64(1); seed <= seeds; seed++ {
			for _, budget := range []int64{0, 400, 1500, 5000} {
				sc := protocols.Scenario{Seed: seed, Protocol: p.Name, Clients: 4,
					FaultKinds: trace.KindNames(), MaxEvents: budget}
				on, onBudget := ghostRun(t, sc, true)
				off, offBudget := ghostRun(t, sc, false)
				if on != off || onBudget != offBudget {
					t.Fatalf("%s seed %d budget %d: with ghosts %s %q, without %s %q",
						p.Name, seed, budget, on[:12], onBudget, off[:12], offBudget)
				}
			}
		}
	}
}

func ghostRun(t *testing.T, sc protocols.Scenario, retire bool) (string, string) {
	t.Helper()
	defer sim.SetRetireDisarmed(sim.SetRetireDisarmed(retire))
	_, tr, err := protocols.Run(sc)
	if err != nil {
		t.Fatalf("%s seed %d: %v", sc.Protocol, sc.Seed, err)
	}
	return tr.Hash(), tr.Stats.Budget
}
