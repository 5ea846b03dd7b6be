package traces

import (
	"testing"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
)

// defaultExploreRun is one seed of `locksim explore` with its defaults
// pinned: redisson, gc-pause, 5 clients, no swarm.
var defaultExploreRun = protocols.Scenario{Seed: 7, Protocol: "redisson", Workload: "unique-name", Clients: 5,
	FaultKinds: []string{"gc-pause"}, AnchorPct: -1}

// One default explore run (the run and its check, with the pool an
// explorer keeps) and one check of its trace stay within their
// allocation budgets: the guard of exploration speed that the benchmarks
// measure, without timing anything.
func TestAllocBudgets(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("allocation counts differ under -race")
	}
	pool := &sim.Pool{}
	defer pool.Close()
	o, err := EvaluatePooled(defaultExploreRun, pool) // fills the pool
	if err != nil {
		t.Fatal(err)
	}
	run := testing.AllocsPerRun(20, func() {
		if _, err := EvaluatePooled(defaultExploreRun, pool); err != nil {
			t.Fatal(err)
		}
	})
	opt := checkOptions(o.File.Scenario)
	check := testing.AllocsPerRun(20, func() { checker.Check(o.File.Trace, opt) })
	for _, b := range []struct {
		what          string
		allocs, limit float64
	}{
		// Measured when simhouse merged onto main (a094a8d): 612 and
		// 212. Redisson now builds its EVAL commands and lock names per
		// call, as the library does (464 on simhouse alone); the checker's
		// properties and damage added 52.
		{"a default explore run", run, 650},
		{"its check", check, 225},
	} {
		t.Logf("%s: %.0f allocations", b.what, b.allocs)
		if b.allocs > b.limit {
			t.Errorf("%s: %.0f allocations, budget %.0f", b.what, b.allocs, b.limit)
		}
	}
}
