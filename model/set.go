package model

import (
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
)

// SetInput is one lock-set operation on Key: add Elem, or read the set.
type SetInput struct {
	Key  string
	Add  bool
	Elem string
}

func (in SetInput) partitionKey() string { return in.Key }

// SetOutput is an add's acknowledgement or a read's content: the sorted,
// comma-separated set.
type SetOutput struct {
	OK      bool
	Read    string
	Unknown bool
}

// LockSet checks the set of the lock-set workload: every acknowledged add
// is in every later read. The state is the sorted, comma-separated set.
// Callers leave out adds that failed. Partitioned by key.
func LockSet() porcupine.Model {
	return (&porcupine.NondeterministicModel{
		Partition: partitionByKey,
		Init:      func() []any { return []any{""} },
		Step: func(state, input, output any) []any {
			set := state.(string)
			in := input.(SetInput)
			out := output.(SetOutput)
			switch {
			case in.Add && out.Unknown:
				return []any{set, SetWith(set, in.Elem)}
			case in.Add:
				return []any{SetWith(set, in.Elem)}
			case out.Unknown || NormalizeSet(out.Read) == set:
				return []any{set}
			}
			return nil
		},
		Equal: func(a, b any) bool { return a.(string) == b.(string) },
		DescribeOperation: func(input, output any) string {
			in, out := input.(SetInput), output.(SetOutput)
			switch {
			case in.Add && out.Unknown:
				return "add(" + in.Elem + ") -> ?"
			case in.Add:
				return "add(" + in.Elem + ") -> ok"
			case out.Unknown:
				return "read -> ?"
			}
			return "read -> {" + out.Read + "}"
		},
		DescribeState: func(state any) string { return "{" + state.(string) + "}" },
	}).ToModel()
}

// SetElems splits a comma-separated set.
func SetElems(set string) []string {
	if set == "" {
		return nil
	}
	return strings.Split(set, ",")
}

// NormalizeSet sorts a comma-separated set and drops duplicates.
func NormalizeSet(set string) string {
	e := SetElems(set)
	slices.Sort(e)
	return strings.Join(slices.Compact(e), ",")
}

// SetWith returns the sorted set with elem added.
func SetWith(set, elem string) string {
	e := SetElems(set)
	i, found := slices.BinarySearch(e, elem)
	if found {
		return set
	}
	return strings.Join(slices.Insert(e, i, elem), ",")
}
