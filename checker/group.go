package checker

import (
	"iter"

	"github.com/locksim/locksim/model"
)

// groups is the indexes 0..n-1 grouped by key (groupBy): each key's in
// increasing order, the keys in the order of their first index.
type groups[K comparable] struct {
	model.Slots[K]       // the keys
	flat           []int // the indexes, key after key (by slot); then each slot's end among them
}

// get is k's indexes, nil for a key with none.
func (g groups[K]) get(k K) []int {
	if s, ok := g.slot(k); ok {
		return g.part(s)
	}
	return nil
}

// part is the indexes of the key in slot s.
func (g groups[K]) part(s int) []int {
	begin, end := g.span(s)
	return g.flat[begin:end:end]
}

// span is where the indexes of the key in slot s lie in flat (and in any
// array laid out like it).
func (g groups[K]) span(s int) (begin, end int) {
	ends := g.flat[len(g.flat)-len(g.Keys):]
	if s > 0 {
		begin = ends[s-1]
	}
	return begin, ends[s]
}

// slot is k's place among the keys.
func (g groups[K]) slot(k K) (int, bool) { return g.Find(k) }

// all yields each key and its indexes, keys in first-seen order.
func (g groups[K]) all() iter.Seq2[K, []int] {
	return func(yield func(K, []int) bool) {
		for s, k := range g.Keys {
			if !yield(k, g.part(s)) {
				return
			}
		}
	}
}

// groupBy lists the indexes 0..n-1 by key, all in one array with the
// keys' ends (each key's slice capped at its own length); an index whose key
// reports false is left out. Each key is found once per run of equal
// keys.
func groupBy[K comparable](n int, key func(int) (K, bool)) groups[K] {
	g := groups[K]{Slots: model.MakeSlots[K](smallKeys)}
	count := make([]int, 0, smallKeys) // per slot: its count, then where it fills
	var small [256]int32               // of, for a run's few indexes
	of := small[:0]                    // by index: its slot, -1 if left out
	if n > len(small) {
		of = make([]int32, 0, n)
	}
	var last K
	lastSlot := int32(-1)
	for i := range n {
		k, ok := key(i)
		if !ok {
			of = append(of, -1)
			continue
		}
		if lastSlot < 0 || k != last {
			lastSlot = int32(g.Add(k))
			if int(lastSlot) == len(count) {
				count = append(count, 0)
			}
			last = k
		}
		of = append(of, lastSlot)
		count[lastSlot]++
	}
	start := 0
	for s, c := range count {
		count[s], start = start, start+c
	}
	g.flat = make([]int, start+len(g.Keys))
	for i, s := range of {
		if s >= 0 {
			g.flat[count[s]] = i
			count[s]++
		}
	}
	copy(g.flat[start:], count) // each slot now counts to its end
	return g
}

// smallKeys is the room a grouping makes for its keys before it grows.
const smallKeys = 16
