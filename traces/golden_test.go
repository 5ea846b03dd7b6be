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
	"4c1d3fbf4d808facc585e0aa9648e9dd2e9bd5a8bd34869c963f098ea67a3b6d",
	"26bb50d77681215dd46b83169d541339068cfabb58958481ece77226a8eefec1",
	"465488f3b0570657881cb1d3cb461e31f576f9a533879050bccd5b3fc97f6069",
	"5fb60f865e48e855d86925e6032c9d733ef37851e4e34218a8c1da7c8b94e9ba",
}
