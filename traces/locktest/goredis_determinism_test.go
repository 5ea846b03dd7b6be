package locktest

import (
	"runtime"
	"testing"

	"github.com/locksim/locksim/protocols"
)

// TestGoRedisSameScenarioSameTrace: unmodified redsync and redislock
// with 5 clients under faults give the same trace, byte for byte, over
// reruns and GOMAXPROCS 1, 2 and 8 (and under -race when the suite runs
// with it).
func TestGoRedisSameScenarioSameTrace(t *testing.T) {
	cases := []struct {
		g  *GoRedis
		sc protocols.Scenario
	}{
		{redsyncGoRedis, protocols.Scenario{Protocol: redsyncGoRedis.Name, Clients: 5, Ops: 2, Seed: 11,
			FaultKinds: []string{"gc-pause", "partition", "reply-loss", "node-restart", "client-crash"}}},
		{redislockGoRedis, protocols.Scenario{Protocol: redislockGoRedis.Name, Clients: 5, Ops: 2, Seed: 12,
			Topology: protocols.TopoReplicated, FaultKinds: []string{"failover", "gc-pause", "partition", "reply-loss"}}},
	}
	reruns := 20
	if raceEnabled {
		reruns = 4
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range cases {
		t.Run(tc.g.Name, func(t *testing.T) {
			cfg := Config{GoRedis: tc.g}
			first := ""
			for _, procs := range []int{1, 2, 8} {
				runtime.GOMAXPROCS(procs)
				for i := range reruns {
					res, err := EvaluateT(t, cfg, tc.sc)
					if err != nil {
						t.Fatal(err)
					}
					f := res.Outcome.File
					if first == "" {
						first = f.TraceSHA256
						t.Logf("%s: %d events, %d faults, verdict %s, trace %s", scenarioLine(f.Scenario),
							len(f.Trace.Events), len(f.Scenario.Faults), f.Report.Verdict, first[:16])
					}
					if f.TraceSHA256 != first {
						t.Fatalf("GOMAXPROCS %d, run %d: trace %s, first run %s", procs, i+1, f.TraceSHA256[:16], first[:16])
					}
				}
			}
		})
	}
}
