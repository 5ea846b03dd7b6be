package trace_test

import (
	"testing"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// TestHashOfRealTracesIsTheCanonicalJSON runs every protocol under a
// swarm-drawn subset of every fault kind (links such as "c1->db", fault
// ids, lost keys, promotions) and hashes its trace both ways.
func TestHashOfRealTracesIsTheCanonicalJSON(t *testing.T) {
	var kinds []string
	for _, k := range trace.KindNames() {
		if protocols.Generates(k) {
			kinds = append(kinds, k)
		}
	}
	for _, p := range protocols.Protocols() {
		for seed := uint64(1); seed <= 3; seed++ {
			sc := protocols.Scenario{Seed: seed, Protocol: p.Name, Swarm: true, FaultKinds: kinds}
			sc, tr, err := protocols.Run(sc)
			if err != nil {
				t.Fatalf("%s seed %d: %v", p.Name, seed, err)
			}
			if got, want := tr.Hash(), trace.WholeHash(tr); got != want {
				t.Fatalf("%s seed %d (%s, %d events): Hash %s, json.Marshal's %s", p.Name, seed, sc.Topology, len(tr.Events), got, want)
			}
		}
	}
}

// BenchmarkHash hashes the trace of `locksim run --protocol redisson
// --clients 300` (about 370,000 events: every unlock wakes every waiting
// process, so events grow as clients squared), as `locksim run` does
// once per run; it reports the time per event.
func BenchmarkHash(b *testing.B) {
	_, tr, err := protocols.Run(protocols.Scenario{Seed: 1, Protocol: "redisson", Clients: 300})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		tr.Hash()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(tr.Events)), "ns/event")
	b.ReportMetric(float64(len(tr.Events)), "events")
}
