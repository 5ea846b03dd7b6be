package model

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// Reentrant is the state of a reentrant mutex: its owner and how many
// times the owner acquired it without releasing.
type Reentrant struct {
	Owner string
	Count int
}

// ReentrantMutex is the mutex of Redisson's RLock: the owner may acquire
// again (the count goes up) and each release takes one back; the lock is
// free when the count reaches zero. A crash frees it at once. Inputs and
// outputs as Mutex; partitioned by key.
func ReentrantMutex() porcupine.Model {
	return constInit(powerset(porcupine.NondeterministicModel{
		Partition:         partitionByKey,
		Init:              func() []any { return []any{Reentrant{}} },
		Equal:             func(a, b any) bool { return a.(Reentrant) == b.(Reentrant) },
		DescribeOperation: describeLock,
		DescribeState: func(state any) string {
			s := state.(Reentrant)
			if s.Owner == "" {
				return "free"
			}
			return fmt.Sprintf("held by %s (count %d)", s.Owner, s.Count)
		},
	}, reentrantStep))
}

func reentrantStep(state, input, output any, next []any) []any {
	s := state.(Reentrant)
	in := inputOf[LockInput](input)
	out := output.(LockOutput)
	switch {
	case in.Acquire:
		after, legal := reacquire(s, in.Owner)
		switch {
		case out.Unknown && legal:
			return append(next, state, after)
		case out.Unknown || !out.OK:
			return append(next, state)
		case legal:
			return append(next, after)
		}
		return next
	case in.Renew:
		if foreignRenewal(s.Owner, in, out) {
			return next
		}
		return append(next, state)
	case in.Crash:
		if s.Owner == in.Owner {
			return append(next, Reentrant{})
		}
		return next
	}
	if s.Owner != in.Owner {
		return next
	}
	if s.Count <= 1 {
		return append(next, Reentrant{})
	}
	return append(next, Reentrant{Owner: s.Owner, Count: s.Count - 1})
}

func reacquire(s Reentrant, owner string) (Reentrant, bool) {
	switch s.Owner {
	case "":
		return Reentrant{Owner: owner, Count: 1}, true
	case owner:
		return Reentrant{Owner: owner, Count: s.Count + 1}, true
	}
	return s, false
}
