// Package model holds the porcupine models locksim checks histories
// against: pure functions over inputs, outputs and states, no sim.
package model

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// LockInput is one lock operation on Key by Owner (a client thread,
// "process/thread"): an acquire, a release (neither flag), a renewal, or
// the owner's crash, which ends its hold like a release.
type LockInput struct {
	Acquire bool
	Renew   bool
	Crash   bool
	Key     string
	Owner   string
}

func (in LockInput) partitionKey() partKey { return partKey{in.Key} }

// AsLockInput is an operation's LockInput, value or pointer; ok is false
// for an input of another model.
func AsLockInput(input any) (in LockInput, ok bool) {
	switch v := input.(type) {
	case LockInput:
		return v, true
	case *LockInput:
		return *v, true
	}
	return LockInput{}, false
}

// LockOutput is what the client saw. Unknown marks an operation whose
// outcome the client never learned (lost reply, crash): it may or may not
// have taken effect.
type LockOutput struct {
	OK      bool
	Unknown bool
}

// Mutex is the strict mutex as the clients believe it: at most one owner
// between an acquire that returned OK and that owner's next release.
// Callers leave out acquires that failed (they cannot change state); every
// release ends its owner's hold, whatever it returned, because the client
// stops believing it holds the lock. A foreign renewal is illegal (see
// foreignRenewal). Partitioned by key.
func Mutex() porcupine.Model {
	return constInit(powerset(porcupine.NondeterministicModel{
		Partition:         partitionByKey,
		Init:              func() []any { return []any{""} },
		Equal:             func(a, b any) bool { return mutexOwner(a) == mutexOwner(b) },
		DescribeOperation: describeLock,
		DescribeState: func(state any) string {
			if mutexOwner(state) == "" {
				return "free"
			}
			return "held by " + mutexOwner(state)
		},
	}, mutexStep))
}

// mutexOwner is a Mutex state's owner, "" when free: a string, or a
// pointer to the Owner of the acquire's input (see heldBy).
func mutexOwner(state any) string {
	if p, ok := state.(*string); ok {
		return *p
	}
	return state.(string)
}

// heldBy is the Mutex state an acquire's input takes it to: its Owner,
// as a pointer into the input when the input is one, which boxes without
// allocating.
func heldBy(input any) any {
	if p, ok := input.(*LockInput); ok {
		return &p.Owner
	}
	return input.(LockInput).Owner
}

func mutexStep(state, input, output any, next []any) []any {
	owner := mutexOwner(state)
	in := inputOf[LockInput](input)
	out := output.(LockOutput)
	switch {
	case in.Acquire:
		switch {
		case out.Unknown:
			if owner == "" {
				return append(next, "", heldBy(input))
			}
			return append(next, state)
		case out.OK && owner == "":
			return append(next, heldBy(input))
		case !out.OK:
			return append(next, state)
		}
		return next
	case in.Renew:
		if foreignRenewal(owner, in, out) {
			return next
		}
		return append(next, state)
	}
	if owner == in.Owner {
		return append(next, "")
	}
	return next
}

func describeLock(input, output any) string {
	in, out := inputOf[LockInput](input), output.(LockOutput)
	verb := "release"
	switch {
	case in.Acquire:
		verb = "acquire"
	case in.Renew:
		verb = "renew"
	case in.Crash:
		return fmt.Sprintf("crash(%s)", in.Owner)
	}
	res := "ok"
	switch {
	case out.Unknown:
		res = "?"
	case !out.OK:
		res = "fail"
	}
	return fmt.Sprintf("%s(%s) -> %s", verb, in.Owner, res)
}
