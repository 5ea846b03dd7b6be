package traces

import (
	"fmt"
	"sort"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
)

// Reference is a named reference timeline of DESIGN.md as an explicit
// scenario.
type Reference struct {
	Name     string
	Summary  string
	Scenario protocols.Scenario
}

var references = map[string]Reference{}

func addReference(r Reference) { references[r.Name] = r }

func init() {
	// c1 takes the 60 s setnx-del lock, then stops the world for 70 s in
	// its 5 s critical section; the key expires, c2 (retrying every
	// 500 ms) takes the lock and inserts; c1 resumes and inserts too.
	addReference(Reference{
		Name:    "pause-no-fencing",
		Summary: "a GC pause outlasts the lease; a second client acquires and both write",
		Scenario: protocols.Scenario{
			Seed: 1, Protocol: "setnx-del", Workload: "unique-name", Clients: 2, Ops: 1, StaggerMs: 500,
			Faults: []sim.Fault{{Kind: sim.FaultGCPause, Target: "c1", AtMs: 1000, DurMs: 70000}},
		},
	})
}

// DefaultReference is what `locksim run` runs with no protocol given.
const DefaultReference = "pause-no-fencing"

// LookupReference returns the reference scenario called name.
func LookupReference(name string) (Reference, error) {
	r, ok := references[name]
	if !ok {
		return Reference{}, fmt.Errorf("unknown scenario %q (try `locksim list`)", name)
	}
	return r, nil
}

// References lists the reference scenarios by name.
func References() []Reference {
	out := make([]Reference, 0, len(references))
	for _, r := range references {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
