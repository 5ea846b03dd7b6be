package traces

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// determinismScenario varies protocol, workload and faults with the seed,
// so the determinism test covers every combination.
func determinismScenario(seed uint64) protocols.Scenario {
	ps := protocols.Protocols()
	ws := protocols.Workloads()
	kinds := append([]string{"none"}, trace.KindNames()...)
	p := ps[seed%uint64(len(ps))]
	topos := protocols.SupportedTopologies(p)
	return protocols.Scenario{
		Seed:       seed,
		Protocol:   p.Name,
		Workload:   ws[(seed/uint64(len(ps)))%uint64(len(ws))].Name,
		Clients:    2 + int(seed%3),
		FaultKinds: []string{kinds[(seed/7)%uint64(len(kinds))], kinds[(seed/3)%uint64(len(kinds))]},
		Topology:   topos[(seed/5)%uint64(len(topos))],
	}
}

// TestDeterminismCoversEveryFaultAndTopology guards the generator above.
func TestDeterminismCoversEveryFaultAndTopology(t *testing.T) {
	kinds, topos := map[string]bool{}, map[string]bool{}
	for s := range uint64(seedsFor(t)) {
		sc := determinismScenario(s)
		for _, k := range sc.FaultKinds {
			kinds[k] = true
		}
		topos[sc.Topology] = true
	}
	for _, k := range trace.KindNames() {
		if !kinds[k] {
			t.Errorf("fault kind %s not covered", k)
		}
	}
	for _, tp := range protocols.Topologies() {
		if !topos[tp] {
			t.Errorf("topology %s not covered", tp)
		}
	}
}

func seedsFor(t *testing.T) int {
	switch {
	case testing.Short() || raceEnabled:
		return 100
	}
	return 1000
}

// traceHash is the hash of sc's trace, its world taken from pool (nil:
// a fresh one).
func traceHash(t *testing.T, sc protocols.Scenario, pool *sim.Pool) string {
	t.Helper()
	_, tr, err := protocols.RunPooled(sc, pool)
	if err != nil {
		t.Fatalf("seed %d: %v", sc.Seed, err)
	}
	return tr.Hash()
}

func TestSameSeedSameTrace(t *testing.T) {
	n := seedsFor(t)
	first := make([]string, n)
	for s := range n {
		first[s] = traceHash(t, determinismScenario(uint64(s)), nil)
	}
	for s := range n {
		if h := traceHash(t, determinismScenario(uint64(s)), nil); h != first[s] {
			t.Fatalf("seed %d: second run hash %s != first %s", s, h[:12], first[s][:12])
		}
	}
	// Through one pool, in reverse: each run takes the Redis stores,
	// coroutines and allocator arrays another scenario left.
	pool := &sim.Pool{}
	defer pool.Close()
	for s := n - 1; s >= 0; s-- {
		if h := traceHash(t, determinismScenario(uint64(s)), pool); h != first[s] {
			t.Fatalf("seed %d: pooled hash %s != %s", s, h[:12], first[s][:12])
		}
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	for s := range n {
		if h := traceHash(t, determinismScenario(uint64(s)), nil); h != first[s] {
			t.Fatalf("seed %d: GOMAXPROCS=1 hash %s != %s", s, h[:12], first[s][:12])
		}
	}
}

func TestDifferentSeedsDiffer(t *testing.T) {
	seen := map[string]uint64{}
	for s := range uint64(50) {
		sc := protocols.Scenario{Seed: s, Protocol: "setnx-lua-del", Workload: "stock"}
		h := traceHash(t, sc, nil)
		if prev, dup := seen[h]; dup {
			t.Fatalf("seeds %d and %d gave the same trace", prev, s)
		}
		seen[h] = s
	}
}

func ExampleExecute() {
	o, err := Execute(protocols.Scenario{Seed: 1, Protocol: "setnx-lua-del", Workload: "stock"})
	if err != nil {
		panic(err)
	}
	fmt.Println(o.File.Report.Verdict)
	// Output: ok
}
