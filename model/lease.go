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
			s := state.(Lease)
			in := inputOf[LeaseInput](input)
			switch in.Kind {
			case LeaseGrant:
				if s.Owner != "" {
					return false, state
				}
				return true, Lease{Owner: in.Owner}
			case LeaseEnd:
				if s.Owner == in.Owner {
					return true, Lease{}
				}
			case LeaseLost:
				if s.Owner == in.Owner {
					return true, Lease{Owner: s.Owner, Lost: true}
				}
			case LeaseDeadline:
				if s.Owner == in.Owner && s.Lost {
					return true, Lease{}
				}
			case LeaseRenew:
				if s.Owner != "" && !sameHolder(s.Owner, in.Owner) {
					return false, state
				}
			}
			return true, state
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
