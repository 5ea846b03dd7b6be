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
