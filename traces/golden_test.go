package traces

import (
	"testing"

	"github.com/locksim/locksim/protocols"
)

// goldenScenarios are fixed (not drawn from the catalog, which grows), so
// their hashes pin the sim across processes and machines.
var goldenScenarios = []protocols.Scenario{
	{Seed: 1, Protocol: "setnx-del", Workload: "unique-name", FaultKinds: []string{"gc-pause"}},
	{Seed: 2, Protocol: "setnx-lua-del", Workload: "stock", FaultKinds: []string{"reply-loss", "clock-jump"}},
	{Seed: 3, Protocol: "setnx-lua-del", Workload: "unique-name", Topology: "replicated", FaultKinds: []string{"failover", "partition"}},
	{Seed: 4, Protocol: "setnx-del", Workload: "stock", FaultKinds: []string{"client-crash", "node-restart", "clock-drift"}, Persistence: "everysec"},
	{Seed: 5, Protocol: "setnx-lua-del", Workload: "stock", Topology: "replicated", FaultKinds: []string{"replication-lag", "watchdog-stall", "slow-work"}},
	// Swarm: the fault subset, timing and clients are drawn from the seed.
	{Seed: 6, Protocol: "redisson", Workload: "lock-set", Swarm: true, FaultKinds: []string{"gc-pause", "failover", "partition", "node-restart", "blackhole", "delay"}},
	{Seed: 7, Protocol: "redlock", Workload: "unique-name", Swarm: true, FaultKinds: []string{"clock-jump", "node-restart"}},
}

// TestTraceHashGolden pins the hashes of a few runs, so that a trace is the
// same in every process and on every machine, not only twice in one test.
// Update the table only with a change that is meant to alter traces.
func TestTraceHashGolden(t *testing.T) {
	for i, sc := range goldenScenarios {
		if h := traceHash(t, sc); h != goldenHashes[i] {
			t.Errorf("golden %d (%s/%s/%v): hash %s, want %s", i, sc.Protocol, sc.Workload, sc.FaultKinds, h, goldenHashes[i])
		}
	}
}

var goldenHashes = []string{
	"780e1f315698f2c8e143944d587d9edcce2383dd7209b29ecbb06667ad309afb",
	"574ce14ca9a6e9c10d18c3ed834020c9979615a95119533f0f7624036ffaa477",
	"61d912641f4c21f420dfedf6aee0a61f3ae4304476883f632528b774457a9379",
	"598adbc2399a0afcbf9eceb92ebc027047b6757f67c0540495bab077a62b09d0",
	"252ab420c34fa85f680b3f2f95857bada58f831fd927c0890dd992dcef84024c",
	"b04661dfa13acd9625447a18b10e727c7c633ea13d3c485bc572d961b3153f43",
	"25e85473a4f360de4a36873d8aaf91461b2847c432d9cddb4820df5f1e928510",
}
