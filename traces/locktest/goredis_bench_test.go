package locktest

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"testing"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces"
)

// costRounds is how many times each side is measured; the fastest counts.
const costRounds = 3

// TestGoRedisCost measures what the bridge costs: a run of a real library
// with 5 clients against a run of its re-implementation on the same
// scenario, checking included, at the process's GOMAXPROCS and at 1 (a
// run is sequential: at more Ps the bubble's hand-offs wake other
// threads). Each side is measured costRounds times, alternated, and its
// fastest round counts: on a shared machine the least disturbed round is
// the nearest to the code's own cost. testing.Benchmark stands in for a
// Benchmark function, which has no *testing.T for the bubble. It prints
// the BENCHMARKS.md rows; it runs only with LOCKSIM_BENCH=1.
func TestGoRedisCost(t *testing.T) {
	if os.Getenv("LOCKSIM_BENCH") == "" {
		t.Skip("set LOCKSIM_BENCH=1 to measure")
	}
	pairs := []struct {
		real  *GoRedis
		reimp string
	}{{redsyncGoRedis, "redlock"}, {redislockGoRedis, "redislock-go"}, {plainGoRedis, "setnx-lua-del"}}
	for _, procs := range []int{runtime.GOMAXPROCS(0), 1} {
		old := runtime.GOMAXPROCS(procs)
		for _, p := range pairs {
			cfg := Config{GoRedis: p.real}
			builtin, bridged := int64(math.MaxInt64), int64(math.MaxInt64)
			for range costRounds { // alternated; the least disturbed round of each counts
				builtin = min(builtin, nsPerRun(t, func() error {
					_, err := traces.Execute(costScenario(p.real, p.reimp))
					return err
				}))
				bridged = min(bridged, nsPerRun(t, func() error {
					_, err := EvaluateT(t, cfg, costScenario(p.real, p.real.Name))
					return err
				}))
			}
			fmt.Printf("| %s (bridged) vs %s | GOMAXPROCS %d | %.2f ms | %.2f ms | %.1fx |\n", p.real.Name, p.reimp, procs,
				float64(bridged)/1e6, float64(builtin)/1e6, float64(bridged)/float64(builtin))
		}
		runtime.GOMAXPROCS(old)
	}
}

// costScenario is the scenario the bridge's cost is measured on, run by
// protocol with g's lease: the cost benchmark and the allocation budget
// share it.
func costScenario(g *GoRedis, protocol string) protocols.Scenario {
	return protocols.Scenario{Seed: 1, Clients: 5, LeaseMs: g.Lease.Milliseconds(), Protocol: protocol}
}

// nsPerRun is run's cost in ns, as testing.Benchmark measures it.
func nsPerRun(t *testing.T, run func() error) int64 {
	return testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			if err := run(); err != nil {
				t.Error(err)
				b.FailNow()
			}
		}
	}).NsPerOp()
}
