package protocols

import (
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/locksim/locksim/sim/trace"
)

var update = flag.Bool("update", false, "rewrite testdata/swarm-draws.jsonl from the current code")

// swarmDraws are swarm scenarios that a renewing lock's hold drawn
// against watchdog-stall must not move: a lock that does not renew, a
// renewing one without the stall, and one whose work is given.
var swarmDraws = []Scenario{
	{Protocol: "setnx-lua-del", FaultKinds: []string{trace.FaultWatchdogStall}},
	{Protocol: "redisson-trylock", FaultKinds: []string{trace.FaultWatchdogStall, trace.FaultGCPause}},
	{Protocol: "redisson", FaultKinds: []string{trace.FaultGCPause, trace.FaultSlowWork}},
	{Protocol: "redisson", FaultKinds: []string{trace.FaultWatchdogStall}, WorkMs: 5000},
}

// TestSwarmDrawsUnchanged: those scenarios, seeds 1 to 8, normalize to
// the JSON committed in testdata/swarm-draws.jsonl, written before the
// hold was coupled to the stall.
func TestSwarmDrawsUnchanged(t *testing.T) {
	var got []string
	for _, base := range swarmDraws {
		for seed := uint64(1); seed <= 8; seed++ {
			sc := base
			sc.Seed, sc.Swarm = seed, true
			n, err := sc.Normalize()
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(n)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(b))
		}
	}
	const path = "testdata/swarm-draws.jsonl"
	if *update {
		if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(want) != len(got) {
		t.Fatalf("%s has %d scenarios, want %d", path, len(want), len(got))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s line %d:\n got %s\nwant %s", path, i+1, got[i], want[i])
		}
	}
}
