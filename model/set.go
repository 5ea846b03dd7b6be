package model

import (
	"slices"
	"strings"
	"sync"

	"github.com/anishathalye/porcupine"
)

// SetInput is one lock-set operation on Key: add Elem, or read the set.
type SetInput struct {
	Key  string
	Add  bool
	Elem string
}

func (in SetInput) partitionKey() partKey { return partKey{in.Key} }

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
// when In ⊆ R ⊆ In ∪ Maybe and leaves exactly the set R. Elements are
// numbered as the search meets them and sets are bitsets, so a step
// costs no string building (the search takes millions of them).
func LockSet() porcupine.Model {
	ids := &elemIDs{id: map[string]int{}, reads: map[string]bitset{}}
	return porcupine.Model{
		Partition: partitionByKey,
		Init:      func() any { return setState{} },
		Step: func(state, input, output any) (bool, any) {
			s := state.(setState)
			in, out := input.(SetInput), output.(SetOutput)
			switch {
			case in.Add && out.Unknown:
				if e := ids.of(in.Elem); !s.In.has(e) {
					s.Maybe = s.Maybe.with(e)
				}
				return true, s
			case in.Add:
				e := ids.of(in.Elem)
				return true, setState{In: s.In.with(e), Maybe: s.Maybe.without(e)}
			case out.Unknown:
				return true, s
			}
			read := ids.read(out.Read)
			if !s.In.subsetOf(read) || !read.subsetOf(s.In.union(s.Maybe)) {
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
				return "{" + ids.names(s.In) + "}"
			}
			return "{" + ids.names(s.In) + "} + maybe {" + ids.names(s.Maybe) + "}"
		},
	}
}

// setState is the family of sets In ∪ S, S any subset of Maybe: In holds
// the elements known present, Maybe the unknown adds since the last read
// (disjoint from In).
type setState struct{ In, Maybe bitset }

// elemIDs numbers a model's elements and caches each read's set; safe
// for concurrent searches of one model.
type elemIDs struct {
	mu    sync.Mutex
	id    map[string]int
	name  []string
	reads map[string]bitset
}

func (x *elemIDs) of(elem string) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.ofLocked(elem)
}

func (x *elemIDs) ofLocked(elem string) int {
	i, ok := x.id[elem]
	if !ok {
		i = len(x.name)
		x.id[elem], x.name = i, append(x.name, elem)
	}
	return i
}

// read is the bitset of a read's comma-separated set.
func (x *elemIDs) read(set string) bitset {
	x.mu.Lock()
	defer x.mu.Unlock()
	b, ok := x.reads[set]
	if !ok {
		for _, e := range SetElems(set) {
			b = b.with(x.ofLocked(e))
		}
		x.reads[set] = b
	}
	return b
}

// names is b's elements as a sorted, comma-separated set.
func (x *elemIDs) names(b bitset) string {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []string
	for i, n := range x.name {
		if b.has(i) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// bitset is a set of element numbers, a string of bytes so that states
// compare with ==; it never ends in a zero byte.
type bitset string

func (b bitset) has(i int) bool { return i/8 < len(b) && b[i/8]&(1<<(i%8)) != 0 }

func (b bitset) with(i int) bitset {
	if b.has(i) {
		return b
	}
	out := []byte(b)
	for len(out) <= i/8 {
		out = append(out, 0)
	}
	out[i/8] |= 1 << (i % 8)
	return bitset(out)
}

func (b bitset) without(i int) bitset {
	if !b.has(i) {
		return b
	}
	out := []byte(b)
	out[i/8] &^= 1 << (i % 8)
	return trimmed(out)
}

func (b bitset) union(c bitset) bitset {
	if len(b) < len(c) {
		b, c = c, b
	}
	if c == "" {
		return b
	}
	out := []byte(b)
	for i := range len(c) {
		out[i] |= c[i]
	}
	return bitset(out)
}

func (b bitset) subsetOf(c bitset) bool {
	for i := range len(b) {
		if i >= len(c) || b[i]&^c[i] != 0 {
			return false
		}
	}
	return true
}

func trimmed(b []byte) bitset {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return bitset(b)
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
