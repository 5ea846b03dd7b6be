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
	"bdff1c11b6db0b36fadef2e932d71e7645cc5c509f642a36810e324d8bb18e18",
	"f974a66ff1033572eb7b7ccc6fdad79994e76a502990d41cea6a870953370a27",
	"26bb50d77681215dd46b83169d541339068cfabb58958481ece77226a8eefec1",
	"1e112f3c8fa3cd77e7582b7b9012ac59bf74c898e4f7dc94fff31d783129a356",
	"8f11a1ba345170d84e95aa7c73fdc259d68bfe4a598b0a4c7a7ddb2b4e31c015",
}
