package explore

import (
	"encoding/json"
	"flag"
	"reflect"
	"strings"
	"testing"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// noFlag are the scenario fields the run command has no flag for; a
// scenario that sets one is replayed from its trace file.
var noFlag = map[string]string{
	"version":     "set by Normalize",
	"retry_ms":    "the workload's user retry; no generator changes it",
	"attempts":    "the workload's bound on retries; no generator changes it",
	"stock":       "derived from clients, threads and ops",
	"timeout_ms":  "the client's command timeout; no generator changes it",
	"horizon_ms":  "the run's bound; no generator changes it",
	"network":     "the latency model; no generator changes it",
	"repl_lag_ms": "the replication lag range; no generator changes it",
}

// TestEveryScenarioFieldHasAFlagOrAReason fails when a field is added to
// the scenario without a run flag (or a reason it needs none): a replay
// command would silently lose it.
func TestEveryScenarioFieldHasAFlagOrAReason(t *testing.T) {
	byField := map[string]string{"seed": "seed", "protocol": "protocol", "workload": "workload", "clients": "clients",
		"client_names": "client-names", "threads": "threads", "ops": "ops", "lease_ms": "lease-ms", "work_ms": "work-ms",
		"think_ms": "think-ms", "stagger_ms": "stagger-ms", "topology": "topology", "nodes": "nodes",
		"persistence": "persistence", "down_after_ms": "down-after-ms", "discovery_ms": "discovery-ms",
		"fault_kinds": "faults", "intensity": "intensity", "faults": "fault", "max_events": "max-events",
		"anchor_pct": "anchor-pct", "arrival": "arrival", "data_apart": "data-apart", "swarm": "swarm",
		"liveness": "liveness", "protocol_file": "protocol-file"}
	names := ScenarioFlagNames()
	st := reflect.TypeOf(protocols.Scenario{})
	for i := range st.NumField() {
		f := st.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		flagName, ok := byField[tag]
		if _, why := noFlag[tag]; !ok && !why {
			t.Errorf("scenario field %s (%s) has no run flag and no reason", f.Name, tag)
		}
		if ok && !strings.Contains(" "+strings.Join(names, " ")+" ", " "+flagName+" ") {
			t.Errorf("field %s: flag --%s is not registered", f.Name, flagName)
		}
	}
}

// TestReplayArgsRebuildTheScenario sets each flag away from its default
// and parses the printed arguments back as run does.
func TestReplayArgsRebuildTheScenario(t *testing.T) {
	base := protocols.Scenario{Seed: 0, Protocol: "setnx-lua-del", Workload: "stock"}
	mods := []func(*protocols.Scenario){
		func(sc *protocols.Scenario) {},
		func(sc *protocols.Scenario) { sc.Clients, sc.Threads, sc.Ops = 5, 2, 3 },
		func(sc *protocols.Scenario) { sc.Clients, sc.ClientNames = 2, []string{"c1", "c3"} },
		func(sc *protocols.Scenario) { sc.LeaseMs, sc.WorkMs, sc.ThinkMs, sc.StaggerMs = 900, 300, 10, 4 },
		func(sc *protocols.Scenario) {
			sc.Topology, sc.Nodes, sc.Persistence, sc.DownAfterMs, sc.DiscoveryMs = "replicated", 3, "everysec", 2000, 50
		},
		func(sc *protocols.Scenario) { sc.FaultKinds, sc.Intensity = []string{"gc-pause", "clock-jump"}, 2.5 },
		func(sc *protocols.Scenario) { sc.Liveness = true },
		func(sc *protocols.Scenario) {
			sc.Topology = "replicated"
			sc.Faults = []trace.Fault{{Kind: trace.FaultPartition, Target: "c1<->redis", AtMs: 10, DurMs: 500},
				{Kind: trace.FaultClockJump, Target: "redis", AtMs: 20, Value: -3000}}
		},
	}
	for i, mod := range mods {
		sc := base
		mod(&sc)
		args, ok := replayArgs(sc)
		if !ok {
			t.Fatalf("case %d: %+v cannot be expressed", i, sc)
		}
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		var got protocols.Scenario
		RegisterScenarioFlags(fs, &got)
		if err := fs.Parse(args[1:]); err != nil {
			t.Fatalf("case %d: %v: %v", i, args, err)
		}
		a, _ := sc.Normalize()
		b, _ := got.Normalize()
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("case %d: %v rebuilds\n%s\nnot\n%s", i, args, jb, ja)
		}
	}
	sc := base
	sc.Network.LossRate = 0.1
	if _, ok := replayArgs(sc); ok {
		t.Fatal("a network model has no flag: the command must not claim to rebuild it")
	}
	if got := ReplayCommand(sc, "t.json"); got != "locksim replay t.json" {
		t.Fatalf("fallback %q", got)
	}
}

func TestParseFaultRoundTripsAndRejectsGarbage(t *testing.T) {
	for _, f := range []trace.Fault{
		{Kind: "gc-pause", Target: "c1", AtMs: 120, DurMs: 30000},
		{Kind: "partition", Target: "redis<->sentinel", AtMs: 0, DurMs: 1},
		{Kind: "clock-jump", Target: "redis-3", AtMs: 5, Value: -2000},
	} {
		got, err := trace.ParseFault(trace.FormatFault(f))
		if err != nil || got != f {
			t.Errorf("%+v -> %q -> %+v, %v", f, trace.FormatFault(f), got, err)
		}
	}
	for _, s := range []string{"", "gc-pause", "gc-pause:c1", "gc-pause:c1@x+1", "gc-pause:c1@1+-1", ":c1@1+1", "gc-pause:@1+1"} {
		if _, err := trace.ParseFault(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}
