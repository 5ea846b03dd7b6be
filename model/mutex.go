// Package model holds the porcupine models locksim checks histories
// against: pure functions over inputs, outputs and states, no sim.
package model

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// LockInput is one lock operation: Acquire or Release of Key by Owner (a
// client thread, "process/thread").
type LockInput struct {
	Acquire bool
	Key     string
	Owner   string
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
// stops believing it holds the lock. Partitioned by key.
func Mutex() porcupine.Model {
	return (&porcupine.NondeterministicModel{
		Partition: partitionByKey,
		Init:      func() []any { return []any{""} },
		Step: func(state, input, output any) []any {
			owner := state.(string)
			in := input.(LockInput)
			out := output.(LockOutput)
			if in.Acquire {
				switch {
				case out.Unknown:
					if owner == "" {
						return []any{"", in.Owner}
					}
					return []any{owner}
				case out.OK && owner == "":
					return []any{in.Owner}
				case !out.OK:
					return []any{owner}
				}
				return nil
			}
			if owner == in.Owner {
				return []any{""}
			}
			return nil
		},
		Equal: func(a, b any) bool { return a.(string) == b.(string) },
		DescribeOperation: func(input, output any) string {
			in, out := input.(LockInput), output.(LockOutput)
			verb := "release"
			if in.Acquire {
				verb = "acquire"
			}
			res := "ok"
			switch {
			case out.Unknown:
				res = "?"
			case !out.OK:
				res = "fail"
			}
			return fmt.Sprintf("%s(%s) -> %s", verb, in.Owner, res)
		},
		DescribeState: func(state any) string {
			if state.(string) == "" {
				return "free"
			}
			return "held by " + state.(string)
		},
	}).ToModel()
}

func partitionByKey(history []porcupine.Operation) [][]porcupine.Operation {
	return partition(history, func(in any) string {
		switch v := in.(type) {
		case LockInput:
			return v.Key
		case InsertInput:
			return v.Name
		case BuyInput:
			return v.Key
		}
		return ""
	})
}

// partition splits a history by key, in first-seen order.
func partition(history []porcupine.Operation, key func(any) string) [][]porcupine.Operation {
	idx := map[string]int{}
	var out [][]porcupine.Operation
	for _, op := range history {
		k := key(op.Input)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], op)
	}
	return out
}
