package locktest

import (
	"testing"

	"github.com/locksim/locksim/sim/trace"
)

// TestFirstDifferenceNamesParallelGoroutines: two runs that part on the
// same step toward different nodes (redsync's per-node goroutines
// retrying in another order, as a user's redsync under node-restart did)
// are told apart from runs that part on a value (a token drawn from an
// unseeded source).
func TestFirstDifferenceNamesParallelGoroutines(t *testing.T) {
	run := func(first, second string, token string) *trace.Trace {
		t0 := int64(5_050_000_000)
		var evs []trace.Event
		for i, n := range []string{"redis-1", "redis-2", "redis-3", "redis-4"} {
			e := trace.Command(n, "c1/t1", "lock", []string{"SET", "lock", token, "NX"}, "OK", "")
			e.T = t0 + int64(i)
			evs = append(evs, e)
		}
		a := trace.Drop("c1", "to "+first+" (down, refused): connect")
		a.T = 5_063_614_000
		b := trace.Drop("c1", "to "+second+" (down, refused): connect")
		b.T = 5_072_300_000
		return &trace.Trace{Events: append(evs, a, b)}
	}
	where, parallel := firstDifference(run("redis-2", "redis-4", "t1"), run("redis-4", "redis-2", "t1"))
	if !parallel || where != `event 4: "t=5063.614 ms drop c1    to redis-2 (down, refused): connect", then "t=5063.614 ms drop c1    to redis-4 (down, refused): connect"` {
		t.Fatalf("swapped nodes: %s (parallel %v)", where, parallel)
	}
	if _, parallel := firstDifference(run("redis-2", "redis-4", "t1"), run("redis-2", "redis-4", "t2")); parallel {
		t.Fatal("runs that part on a token value were put down to parallel goroutines")
	}
}
