package model

import (
	"errors"
	"fmt"
	"strings"

	"github.com/anishathalye/porcupine"
)

// Spec is a user's protected resource as a sequential state machine: what
// its operations do when they run one at a time. locktest records every
// operation a user's workload performs on the resource inside its critical
// sections, and the checker checks that history for linearizability
// against the Spec, key by key (each key of the resource is independent).
type Spec struct {
	// Name names the resource in traces and reports (the check's model is
	// "resource:<Name>"); letters, digits, '-' and '_' only.
	Name string
	// Init is the state of a key before any operation.
	Init func() any
	// Apply runs operation op with argument arg on state and returns the
	// next state and the operation's result, as the workload records it.
	// It must not modify state. States must be comparable with == unless
	// Equal is set.
	Apply func(state any, op, arg string) (next any, result string)
	// Equal compares two states; nil: ==.
	Equal func(a, b any) bool
	// Describe renders a state for the linearization page; nil: %v.
	Describe func(state any) string
}

// Call is one operation on a user's resource: porcupine's input.
type Call struct {
	Key, Op, Arg string
}

func (c Call) partitionKey() partKey { return partKey{c.Key} }

// Outcome is what the operation returned: porcupine's output.
type Outcome struct {
	Result  string
	Unknown bool // the client never learned the result: it may or may not have happened
}

// A result the resource's own fencing gave: the operation was refused and
// changed nothing, whatever the Spec's Apply would have done.
const resRefused = ResRejected

// UserKindSep separates a user resource's name from the operation's in an
// Op's kind: "account/deposit".
const UserKindSep = "/"

// UserKind is the Op kind of operation op on the user resource called
// resource.
func UserKind(resource, op string) string { return resource + UserKindSep + op }

// SplitUserKind reads an Op kind written by UserKind.
func SplitUserKind(kind string) (resource, op string, ok bool) {
	return strings.Cut(kind, UserKindSep)
}

// ModelName is the name of the check of s's history in a report.
func (s Spec) ModelName() string { return "resource:" + s.Name }

// IsName reports a name a user's resource or data may have: letters,
// digits, - and _ only (it becomes part of a workload and model name).
func IsName(name string) bool {
	return strings.IndexFunc(name, func(r rune) bool {
		return !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0
}

// Validate refuses a Spec the checker cannot use.
func (s Spec) Validate() error {
	switch {
	case s.Name == "":
		return errors.New("a resource Spec needs a Name")
	case !IsName(s.Name):
		return fmt.Errorf("resource name %q: letters, digits, - and _ only", s.Name)
	case s.Init == nil || s.Apply == nil:
		return fmt.Errorf("resource %s: Spec needs Init and Apply", s.Name)
	}
	return nil
}

// Model is s as a porcupine model over Call and Outcome, partitioned by
// key. An operation of unknown outcome may have happened or not; one the
// resource refused (result "rejected") changed nothing; any other
// operation is legal when Apply gives the result it returned.
func (s Spec) Model() porcupine.Model {
	equal := s.Equal
	if equal == nil {
		equal = func(a, b any) bool { return a == b }
	}
	describe := s.Describe
	if describe == nil {
		describe = func(st any) string { return fmt.Sprint(st) }
	}
	return powerset(porcupine.NondeterministicModel{
		Partition: partitionByKey,
		Init:      func() []any { return []any{s.Init()} },
		Equal:     equal,
		DescribeOperation: func(input, output any) string {
			in, out := input.(Call), output.(Outcome)
			res := out.Result
			if out.Unknown {
				res = "?"
			}
			return fmt.Sprintf("%s(%s) -> %s", in.Op, in.Arg, res)
		},
		DescribeState: describe,
	}, s.step)
}

// step is the successors of state by one call: with and without it when
// its outcome is unknown, none when Apply disagrees with its result.
func (s Spec) step(state, input, output any, next []any) []any {
	in, out := input.(Call), output.(Outcome)
	after, res := s.Apply(state, in.Op, in.Arg)
	switch {
	case out.Unknown:
		return append(next, state, after)
	case out.Result == resRefused:
		return append(next, state)
	case out.Result == res:
		return append(next, after)
	}
	return next
}
