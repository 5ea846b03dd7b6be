package locktest

import (
	"testing"

	"github.com/locksim/locksim/protocols"
)

// A bridged run of redsync and of bsm/redislock (5 clients, the cost
// benchmark's scenario) stays within its allocation budget: the guard of
// the bridge's cost that TestGoRedisCost measures, without timing
// anything. Most allocations are the libraries' and go-redis's own; the
// bridge's share is what a change to sim/bridge moves.
func TestGoRedisAllocBudgets(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("allocation counts differ under -race")
	}
	for _, b := range []struct {
		g     *GoRedis
		limit float64
	}{
		// Measured at 56b69c7 + the bridge's reused buffers: 16,190 and
		// 196,666 (17,228 and 221,436 before).
		{redislockGoRedis, 16_700},
		{redsyncGoRedis, 205_000},
	} {
		sc := protocols.Scenario{Seed: 1, Clients: 5, LeaseMs: b.g.Lease.Milliseconds(), Protocol: b.g.Name}
		cfg := Config{GoRedis: b.g}
		allocs := testing.AllocsPerRun(3, func() {
			if _, err := EvaluateT(t, cfg, sc); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("%s: %.0f allocations a run", b.g.Name, allocs)
		if allocs > b.limit {
			t.Errorf("%s: %.0f allocations a run, budget %.0f", b.g.Name, allocs, b.limit)
		}
	}
}
