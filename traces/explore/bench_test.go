package explore

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces"
)

// BenchmarkExploreDefault is one run of the default explore scenario
// (5 clients, redisson, gc-pause), checking included.
func BenchmarkExploreDefault(b *testing.B) {
	b.ReportAllocs()
	var s uint64
	for b.Loop() {
		s++
		if _, err := traces.Evaluate(protocols.Scenario{Seed: s, Protocol: "redisson", Workload: "unique-name", Clients: 5,
			FaultKinds: []string{"gc-pause"}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExploreDefaultSwarm is the default explore scenario as explore
// runs it now: swarm on (5 clients pinned, the rest drawn per seed),
// anchored faults included.
func BenchmarkExploreDefaultSwarm(b *testing.B) {
	b.ReportAllocs()
	var s uint64
	for b.Loop() {
		s++
		if _, err := traces.Evaluate(protocols.Scenario{Seed: s, Protocol: "redisson", Workload: "unique-name", Clients: 5,
			FaultKinds: []string{"gc-pause"}, Swarm: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExploreFaultFree is the default scenario without faults: what
// resolving anchors from a fault-free run would add to every run.
func BenchmarkExploreFaultFree(b *testing.B) {
	b.ReportAllocs()
	var s uint64
	for b.Loop() {
		s++
		if _, err := traces.Evaluate(protocols.Scenario{Seed: s, Protocol: "redisson", Workload: "unique-name", Clients: 5}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExplorePath is `locksim explore --protocol redisson --faults
// gc-pause --clients 5` as the CLI runs it: Explore over b.N seeds with a
// worker per GOMAXPROCS (run it with -cpu 1,2) and the CLI's GOGC=400. On
// an idle machine, runs/s is 1e9 / ns/op; cpu-ns/op (user+system) is the
// CPU one run costs, which load does not inflate much. "plain" is swarm
// and anchored faults off (--swarm=false --anchor-pct -1), "swarm" the
// CLI's defaults (swarm on, half the faults anchored). Coroutines are
// pooled across runs, as Explore pools them.
func BenchmarkExplorePath(b *testing.B) {
	for _, c := range []struct {
		name   string
		swarm  bool
		anchor int
	}{{"plain", false, -1}, {"swarm", true, 0}} {
		b.Run(c.name, func(b *testing.B) {
			defer debug.SetGCPercent(debug.SetGCPercent(400))
			cfg := ExploreConfig{Runs: b.N, Workers: runtime.GOMAXPROCS(0), SeedStart: 1,
				Base: protocols.Scenario{Protocol: "redisson", Clients: 5, FaultKinds: []string{"gc-pause"},
					Swarm: c.swarm, AnchorPct: c.anchor}}
			b.ReportAllocs()
			cpu := cpuTime()
			b.ResetTimer()
			s, err := Explore(context.Background(), cfg, nil)
			b.StopTimer()
			if err != nil || s.Errors > 0 || s.Runs != b.N {
				b.Fatalf("explore: %v, %+v", err, s)
			}
			reportCPU(b, cpuTime()-cpu, b.N)
		})
	}
}
