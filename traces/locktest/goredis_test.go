package locktest

import (
	"testing"

	"github.com/locksim/locksim/protocols"
)

func TestGoRedisScenarioRuns(t *testing.T) {
	for _, g := range []*GoRedis{plainGoRedis, redislockGoRedis, redsyncGoRedis} {
		t.Run(g.Name, func(t *testing.T) {
			cfg := Config{GoRedis: g, MaxClients: 3}
			c, err := cfg.prepare()
			if err != nil {
				t.Fatal(err)
			}
			sc := protocols.Scenario{Protocol: c.Protocol, Clients: 3, Ops: 2, Seed: 7}
			res, err := EvaluateT(t, cfg, sc)
			if err != nil {
				t.Fatal(err)
			}
			f := res.Outcome.File
			t.Logf("%s: verdict %s, %d events, %d ops, sim %.1f s", g.Name, f.Report.Verdict, len(f.Trace.Events), len(f.Trace.Ops), float64(f.Trace.Stats.SimNs)/1e9)
			for _, o := range f.Trace.Ops {
				t.Logf("  %+v", o)
			}
		})
	}
}
