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
// is in every later read. Callers leave out adds that failed. Partitioned
// by key.
//
// An add of unknown outcome may or may not have taken effect, so the
// states a history can reach are every set In ∪ S with S a subset of the
// unknown adds not yet read: a list of those sets (a nondeterministic
// model) doubles with each unknown add, and a lock-set run under failover
// has dozens of them. The state is that family itself, setState: an
// acknowledged add joins In, an unknown one Maybe, and a read R is legal
// when In ⊆ R ⊆ In ∪ Maybe and leaves exactly the set R.
func LockSet() porcupine.Model {
	return porcupine.Model{
		Partition: partitionByKey,
		Init:      func() any { return setState{} },
		Step: func(state, input, output any) (bool, any) {
			s := state.(setState)
			in, out := input.(SetInput), output.(SetOutput)
			switch {
			case in.Add && out.Unknown:
				if !slices.Contains(SetElems(s.In), in.Elem) {
					s.Maybe = SetWith(s.Maybe, in.Elem)
				}
				return true, s
			case in.Add:
				return true, setState{In: SetWith(s.In, in.Elem), Maybe: setWithout(s.Maybe, in.Elem)}
			case out.Unknown:
				return true, s
			}
			read := NormalizeSet(out.Read)
			if !s.admits(read) {
				return false, s
			}
			return true, setState{In: read}
		},
		Equal: func(a, b any) bool { return a.(setState) == b.(setState) },
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
		DescribeState: func(state any) string {
			s := state.(setState)
			if s.Maybe == "" {
				return "{" + s.In + "}"
			}
			return "{" + s.In + "} + maybe {" + s.Maybe + "}"
		},
	}
}

// setState is the family of sets In ∪ S, S any subset of Maybe: In holds
// the elements known present, Maybe the unknown adds since the last read
// (disjoint from In). Both are sorted, comma-separated sets.
type setState struct{ In, Maybe string }

// admits reports whether the sorted set read is one of the family.
func (s setState) admits(read string) bool {
	got := SetElems(read)
	for _, e := range SetElems(s.In) {
		if _, found := slices.BinarySearch(got, e); !found {
			return false
		}
	}
	in, maybe := SetElems(s.In), SetElems(s.Maybe)
	for _, e := range got {
		_, inIn := slices.BinarySearch(in, e)
		_, inMaybe := slices.BinarySearch(maybe, e)
		if !inIn && !inMaybe {
			return false
		}
	}
	return true
}

// setWithout returns the sorted set without elem.
func setWithout(set, elem string) string {
	e := SetElems(set)
	i, found := slices.BinarySearch(e, elem)
	if !found {
		return set
	}
	return strings.Join(slices.Delete(e, i, i+1), ",")
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
