package protocols

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNormalizeIsAFixedPoint: a normalized scenario, as a trace file
// stores it, normalizes to itself, so replaying the file runs the same
// scenario; swarm draws included (a swarm that drew a zero stagger once
// drew it again, differently, on replay).
func TestNormalizeIsAFixedPoint(t *testing.T) {
	for seed := range uint64(40) {
		for _, sc := range []Scenario{
			{Seed: seed, Protocol: "setnx-del", FaultKinds: []string{"gc-pause"}, Clients: 4, Intensity: 2, Swarm: true},
			{Seed: seed, Protocol: "redisson", Workload: "lock-set", Swarm: true, FaultKinds: []string{"gc-pause", "failover", "partition"}},
			{Seed: seed, Protocol: "redlock", FaultKinds: []string{"clock-jump", "node-restart"}},
		} {
			n, err := sc.Normalize()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(n)
			var read Scenario
			if err := json.Unmarshal(b, &read); err != nil {
				t.Fatal(err)
			}
			m, err := read.Normalize()
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if c, _ := json.Marshal(m); string(c) != string(b) {
				t.Fatalf("seed %d %s: normalizing twice changes the scenario:\n%s\n%s", seed, sc.Protocol, b, c)
			}
		}
	}
}

// TestValidateChecksFieldsWithoutDrawing: Validate refuses what Normalize
// refuses, and unknown fault kinds, and leaves no schedule drawn.
func TestValidateChecksFieldsWithoutDrawing(t *testing.T) {
	for _, tc := range []struct {
		sc   Scenario
		want string
	}{
		{Scenario{Protocol: "setnx-del"}, ""},
		{Scenario{Protocol: "setnx-del", FaultKinds: []string{"gc-pause", "delay", "none"}}, ""},
		{Scenario{Protocol: "setnx-del", FaultKinds: []string{"meteor"}}, `unknown fault kind "meteor"`},
		{Scenario{Protocol: "setnx-del", Topology: TopoIndependent}, "does not run on topology"},
		{Scenario{Protocol: "setnx-del", Workload: "nope"}, `unknown workload "nope"`},
		{Scenario{Protocol: "setnx-del", Clients: 2000}, "clients must be between 1 and 1000"},
	} {
		err := tc.sc.Validate()
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want %q", tc.sc, err, tc.want)
		}
	}
}
