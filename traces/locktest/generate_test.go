package locktest

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

// allKinds is every fault kind the generator draws.
var allKinds = slices.Clone(trace.KindNames())

// realParties lists, independently of the generator, every party a
// fault of sc may aim at.
func realParties(sc protocols.Scenario) []string {
	out := []string{sim.Master, protocols.DBService}
	for i := range sc.Clients {
		out = append(out, protocols.ClientName(i))
	}
	switch sc.Topology {
	case protocols.TopoSingle:
		out = append(out, protocols.MasterNode)
	case protocols.TopoReplicated:
		out = append(out, protocols.MasterNode, sim.Sentinel)
		for i := range sc.Nodes {
			out = append(out, protocols.ReplicaName(i))
		}
	case protocols.TopoIndependent:
		out = append(out, "redis-data")
		for i := range sc.Nodes {
			out = append(out, protocols.IndependentName(i))
		}
	}
	return out
}

// TestScenariosAimAtRealParties draws scenarios with every fault kind on
// every topology: each fault aims at the scenario's real parties, its
// numbers are on the generator's grid, and the scenario runs.
func TestScenariosAimAtRealParties(t *testing.T) {
	for _, tc := range []struct{ protocol, topology string }{
		{"setnx-lua-del", protocols.TopoSingle},
		{"setnx-lua-del", protocols.TopoReplicated},
		{"redlock", protocols.TopoIndependent},
	} {
		t.Run(tc.protocol+"/"+tc.topology, func(t *testing.T) {
			cfg := Config{Protocol: tc.protocol, Faults: allKinds, Topologies: []string{tc.topology}, MaxFaults: 5, MaxOps: 2}
			c := cfg.mustPrepare()
			kinds := map[string]bool{}
			rapid.Check(t, func(rt *rapid.T) {
				sc := c.draw(rapidSource{rt})
				parties := realParties(sc)
				eighth := sc.LeaseMs / 8
				for _, f := range sc.Faults {
					kinds[f.Kind] = true
					ends := []string{f.Target}
					for _, sep := range []string{"<->", "->"} {
						if a, b, ok := strings.Cut(f.Target, sep); ok {
							ends = []string{a, b}
							break
						}
					}
					for _, p := range ends {
						if !slices.Contains(parties, p) {
							rt.Fatalf("fault %+v aims at %q, not a party of %v", f, p, parties)
						}
					}
					if f.AtMs%100 != 0 && f.Kind != trace.FaultReplicationLag {
						rt.Fatalf("fault %+v starts off the 100 ms grid", f)
					}
					if f.Kind != trace.FaultFailover && f.Kind != trace.FaultReplicationLag && f.DurMs%eighth != 0 {
						rt.Fatalf("fault %+v lasts %d ms, not eighths of the %d ms lease", f, f.DurMs, sc.LeaseMs)
					}
				}
				if _, err := traces.Execute(sc); err != nil {
					rt.Fatalf("scenario does not run: %v\n%+v", err, sc)
				}
			})
			if !testing.Short() && len(kinds) < len(allKinds)-3 {
				t.Errorf("drew only kinds %v of %v", kinds, allKinds)
			}
		})
	}
}

// TestDecode: the same bytes give the same scenario, every input a valid
// one, and the empty input the simplest.
func TestDecode(t *testing.T) {
	cfg := Config{Protocol: "setnx-lua-del", Faults: allKinds, Topologies: []string{protocols.TopoSingle, protocols.TopoReplicated}}
	sc, err := Decode(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Topology != protocols.TopoSingle || sc.Clients != 1 || sc.Threads != 1 || sc.Ops != 1 || len(sc.Faults) != 0 ||
		sc.Seed != 0 || sc.StaggerMs != 500 || sc.RetryMs != 500 || sc.LeaseMs != 10000 {
		t.Fatalf("empty input: %+v", sc)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		b := make([]byte, r.IntN(200))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		a, err := Decode(cfg, b)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := Decode(cfg, b)
		if !reflect.DeepEqual(a, again) {
			t.Fatalf("input %d decodes two ways", i)
		}
		if _, err := a.Normalize(); err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
	}
}

// TestConfigErrors: a bad Config fails Check with one clear line, and
// panics in the functions that return no error.
func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "needs a Protocol, a Lock or a GoRedis"},
		{Config{Protocol: "nope"}, `unknown protocol "nope"`},
		{Config{Protocol: "setnx-del", Faults: []string{"meteor"}}, `unknown fault kind "meteor"`},
		{Config{Protocol: "setnx-del", Topologies: []string{protocols.TopoIndependent}}, "does not run on topology"},
		{Config{Protocol: "setnx-del", Workload: "nope"}, `unknown workload "nope"`},
		{Config{Protocol: "setnx-del", Property: "liveness"}, `unknown Config.Property "liveness"`},
		{Config{Protocol: "setnx-del", Leases: []time.Duration{time.Microsecond}}, "shorter than 1 ms"},
		// Scenario fields are validated by protocols' Scenario.Validate.
		{Config{Protocol: "setnx-del", Leases: []time.Duration{40 * 24 * time.Hour}}, "lease_ms 3456000000 is out of range"},
		{Config{Protocol: "setnx-del", Work: 40 * 24 * time.Hour}, "work_ms 3456000000 is out of range"},
	} {
		r := newRecorder(t)
		Check(r, tc.cfg)
		if !r.Failed() || !strings.Contains(r.message(), tc.want) || strings.Contains(r.message(), "\n") {
			t.Errorf("%+v: failed %v with %q, want one line with %q", tc.cfg, r.Failed(), r.message(), tc.want)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%+v: Scenarios did not panic", tc.cfg)
				}
			}()
			Scenarios(tc.cfg)
		}()
	}
}
