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
	"61224fe479a557db6862026b2d31807eab4814bee19efd2af12fdeb447aad5cc",
	"39c3cbcea22d841b2b41b5b213d540d16dfa369aa0c588ed064015ae4af7f829",
	"a1cfb39dab016b7f0f1d14497652cbc7b347d2d4dafdcda6d48b9d7a91d975d2",
	"5e290150ed013cfd271651a25a4a9623aabd8d6aaffd1f620147bc7e36c71daf",
	"509594906987a5fc0c38864b0a45b7c1ce95ef0dd7a65e9e83734debf93b8692",
	"e952655460f82e0d04aba86c390ad5a5944f4a105efa585405da65f39dd94cde",
	"88bedf37b6c2c2032f90b39f9d42813d3f2d749953546e825d03dd52c3581555",
}
