package explore

import (
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
