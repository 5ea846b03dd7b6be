package locktest_test

import (
	"testing"

	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces/locktest"
)

// fuzzConfig is the property FuzzScenario explores: setnx-lua-del keeps
// mutual exclusion under the faults a token and a Lua release are meant
// to survive (lost connectivity, lost replies, crashed clients). Run
// `go test -fuzz FuzzScenario ./traces/locktest/`; a failure writes its
// trace under testdata/locksim and prints the command that replays it.
var fuzzConfig = locktest.Config{
	Protocol: "setnx-lua-del",
	Faults:   []string{trace.FaultPartition, trace.FaultReplyLoss, trace.FaultClientCrash},
}

// handcrafted is the seed in testdata/fuzz/FuzzScenario/reply-loss-then-partition.
// Two bytes per choice, in draw order (see Decode): 2 clients, 2 ops,
// the default stagger and retry, 2 fault events: reply loss on redis at
// 0.3 s for 3/8 of the lease, then a partition of c2 from redis at 1 s
// for half the lease; the seed's 8 bytes follow.
var handcrafted = []byte{0, 1, 0, 1, 0, 0, 0, 0, 0, 2,
	0, 1, 0, 0, 0, 3, 0, 2, 0, 0,
	0, 0, 0, 1, 0, 10, 0, 3,
	0, 0, 0, 0, 0, 0, 0, 7}

// FuzzScenario fuzzes fuzzConfig's property. Its seed corpus: FuzzSeeds
// and testdata/fuzz/FuzzScenario.
func FuzzScenario(f *testing.F) {
	for _, seed := range locktest.FuzzSeeds(8) {
		f.Add(seed)
	}
	f.Fuzz(locktest.Fuzz(fuzzConfig))
}

// TestFuzzSeedsDecode: every seed decodes to a valid scenario, the
// handcrafted one to the schedule its comment says.
func TestFuzzSeedsDecode(t *testing.T) {
	for i, seed := range locktest.FuzzSeeds(8) {
		if _, err := locktest.Decode(fuzzConfig, seed); err != nil {
			t.Fatalf("seed %d: %v", i, err)
		}
	}
	sc, err := locktest.Decode(fuzzConfig, handcrafted)
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.Fault{
		{Kind: trace.FaultReplyLoss, Target: "redis", AtMs: 300, DurMs: 3750, Value: 1000},
		{Kind: trace.FaultPartition, Target: "c2<->redis", AtMs: 1000, DurMs: 5000},
	}
	if sc.Clients != 2 || sc.Ops != 2 || sc.Seed != 7 || len(sc.Faults) != 2 || sc.Faults[0] != want[0] || sc.Faults[1] != want[1] {
		t.Fatalf("decoded %d clients, %d ops, seed %d, faults %+v", sc.Clients, sc.Ops, sc.Seed, sc.Faults)
	}
}
