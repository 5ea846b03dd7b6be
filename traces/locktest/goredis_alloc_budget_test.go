package locktest

import "testing"

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
		// Measured at 5316b98 (the bridge's reused buffers): 16,187 and
		// 196,608 (17,224 and 221,403 before).
		{redislockGoRedis, 16_700},
		{redsyncGoRedis, 205_000},
	} {
		sc := costScenario(b.g, b.g.Name)
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
