package explore

import (
	"testing"

	"github.com/locksim/locksim/protocols"
)

func reached(s *Summary, state string) int {
	for _, c := range s.Coverage {
		if c.State == state {
			return c.Runs
		}
	}
	return -1
}

// TestCoverageCountsTheDangerousStates explores, for each state, a
// configuration whose faults reach it (the seed texts' failures), and one
// without faults, where no state is reached.
func TestCoverageCountsTheDangerousStates(t *testing.T) {
	if raceEnabled {
		t.Skip("260 runs, a minute under -race: .ci/run runs it without -race")
	}
	cases := []struct {
		state string
		base  protocols.Scenario
	}{
		// A pause longer than the lease: the key expires under its holder.
		{"lost-while-held", protocols.Scenario{Protocol: "setnx-del", FaultKinds: []string{"gc-pause"}}},
		// A split brain: the sentinel promotes a replica while the old
		// master still serves its holders.
		{"promotion-during-hold", protocols.Scenario{Protocol: "setnx-lua-del", Topology: protocols.TopoReplicated,
			FaultKinds: []string{"partition"}}},
		// A jump expires one of a redlock holder's keys.
		{"bare-quorum", protocols.Scenario{Protocol: "redlock-setnx-extend", FaultKinds: []string{"gc-pause"}}},
		// Redisson's watchdog fires as its paused process resumes.
		{"renewal-after-expiry", protocols.Scenario{Protocol: "redisson", FaultKinds: []string{"gc-pause"}}},
		// setnx-del's DEL after the pause finds the next holder's key.
		{"release-found-other-owner", protocols.Scenario{Protocol: "setnx-del", FaultKinds: []string{"gc-pause"}}},
	}
	for _, c := range cases {
		s := explore(t, ExploreConfig{Base: c.base, Runs: 40, SeedStart: 1})
		if n := reached(s, c.state); n <= 0 {
			t.Errorf("%s under %v: %s reached in %d of 40 runs, want some (%+v)", c.base.Protocol, c.base.FaultKinds, c.state, n, s.Coverage)
		}
	}
	for _, p := range []string{"setnx-lua-del", "redlock", "redisson"} {
		s := explore(t, ExploreConfig{Base: protocols.Scenario{Protocol: p}, Runs: 20, SeedStart: 1})
		if len(s.Coverage) != 5 {
			t.Fatalf("%s: coverage %+v, want five states", p, s.Coverage)
		}
		for _, c := range s.Coverage {
			// Contention alone can split Redlock's masters 3 to 2: the
			// winner holds a bare quorum with no fault at all (2 of 20
			// runs since each client dials and greets every master
			// before its first SET, as go-redis does).
			if c.Runs != 0 && (p != "redlock" || c.State != "bare-quorum") {
				t.Errorf("%s without faults reached %s in %d runs", p, c.State, c.Runs)
			}
		}
	}
}
