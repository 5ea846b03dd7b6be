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
			sc := protocols.Scenario{Seed: 1, Clients: 5, LeaseMs: p.real.Lease.Milliseconds()}
			cfg := Config{GoRedis: p.real}
			builtin, bridged := int64(math.MaxInt64), int64(math.MaxInt64)
			for range costRounds { // alternated; the least disturbed round of each counts
				builtin = min(builtin, testing.Benchmark(func(b *testing.B) {
					sc := sc
					sc.Protocol = p.reimp
					for b.Loop() {
						if _, err := traces.Execute(sc); err != nil {
							b.Fatal(err)
						}
					}
				}).NsPerOp())
				bridged = min(bridged, testing.Benchmark(func(b *testing.B) {
					sc := sc
					sc.Protocol = p.real.Name
					for b.Loop() {
						if _, err := EvaluateT(t, cfg, sc); err != nil {
							b.Fatal(err)
						}
					}
				}).NsPerOp())
			}
			fmt.Printf("| %s (bridged) vs %s | GOMAXPROCS %d | %.2f ms | %.2f ms | %.1fx |\n", p.real.Name, p.reimp, procs,
				float64(bridged)/1e6, float64(builtin)/1e6, float64(bridged)/float64(builtin))
		}
		runtime.GOMAXPROCS(old)
	}
}
