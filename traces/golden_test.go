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
	"02dc7c9c008f46071548fc9fcd223f3c8f6f2aaeea705ba20013aef32d16fa6f",
	"61d912641f4c21f420dfedf6aee0a61f3ae4304476883f632528b774457a9379",
	"74464d46ac7f4628bc4f84df54e23dcd9f44b76ac2cdffff1aaefd3db2ce65e9",
	"514ad7412ebe2d5eba57757c5a525ed4285624de0d5b562847e832e2a57d4d87",
	"e07cfa2405faa8533da1715943800a7acf101180486fef70fe134ff92a8aa05a",
	"edd87e07e284027675777549ceeabcd9d447e34e2b9f4f14ca4af19935797009",
}
