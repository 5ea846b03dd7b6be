package model

import (
	"github.com/anishathalye/porcupine"
)

// LeaseKind is what happened to a lock key on the Redis deployment.
type LeaseKind int

// Lease events, read from the sim's ground truth.
const (
	LeaseGrant    LeaseKind = iota // a command created the key for Owner
	LeaseEnd                       // the grant ended honestly: deleted, expired on time
	LeaseLost                      // the key vanished before its lease ran out (failover, clock jump, restart)
	LeaseDeadline                  // the lost grant's lease ran out, or its owner stopped believing it
	LeaseRenew                     // Owner extended the key's TTL
)

var leaseVerbs = [...]string{"grant", "end", "lost", "deadline", "renew"}

// LeaseInput is one ground-truth event on Key at Site (a node, or a
// replicated deployment as a whole).
type LeaseInput struct {
	Kind  LeaseKind
	Site  string
	Key   string
	Owner string
}

func (in LeaseInput) partitionKey() partKey { return partKey{in.Site, in.Key} }

// Lease is the state of one key at one site: who the deployment granted
// it to, and whether the key has vanished while that grant still runs.
type Lease struct {
	Owner string
	Lost  bool
}

// LeaseMutex checks that the deployment kept every lock it granted until
// the grant ended honestly: a new grant is legal only when no grant is in
// force, and a lost grant stays in force until its deadline. Only the
// owner's process may renew. Inputs are events, not client calls: the
// output is ignored. Partitioned by site and key.
func LeaseMutex() porcupine.Model {
	return constInit(porcupine.Model{
		Partition: partitionByKey,
		Init:      func() any { return Lease{} },
		Step: func(state, input, _ any) (bool, any) {
			next, ok := leaseStep(state.(Lease), inputOf[LeaseInput](input))
			switch next {
			case state.(Lease):
				return ok, state
			case Lease{}:
				return ok, Lease{} // boxed from a constant
			}
			return ok, next
		},
		Equal: func(a, b any) bool { return a.(Lease) == b.(Lease) },
		DescribeOperation: func(input, _ any) string {
			in := inputOf[LeaseInput](input)
			return leaseVerbs[in.Kind] + "(" + in.Owner + ")"
		},
		DescribeState: func(state any) string {
			s := state.(Lease)
			switch {
			case s.Owner == "":
				return "free"
			case s.Lost:
				return "lost while granted to " + s.Owner
			}
			return "granted to " + s.Owner
		},
	})
}

// leaseStep is the lease mutex's step from s: the next state, and false
// for an illegal event (which leaves s).
func leaseStep(s Lease, in LeaseInput) (Lease, bool) {
	switch in.Kind {
	case LeaseGrant:
		if s.Owner != "" {
			return s, false
		}
		return Lease{Owner: in.Owner}, true
	case LeaseEnd:
		if s.Owner == in.Owner {
			return Lease{}, true
		}
	case LeaseLost:
		if s.Owner == in.Owner {
			return Lease{Owner: s.Owner, Lost: true}, true
		}
	case LeaseDeadline:
		if s.Owner == in.Owner && s.Lost {
			return Lease{}, true
		}
	case LeaseRenew:
		if s.Owner != "" && !sameHolder(s.Owner, in.Owner) {
			return s, false
		}
	}
	return s, true
}
