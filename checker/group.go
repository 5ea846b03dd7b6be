package checker

import "iter"

// groups is the indexes 0..n-1 grouped by key (groupBy): each key's in
// increasing order, the keys in the order of their first index. It is
// the checker's one index type: clients' operations and events, holds
// by client and key, grants by owner, the lock keys themselves.
type groups[K comparable] struct {
	Keys  []K       // in the order of their first index
	lists [][]int   // each key's indexes, by its place in Keys
	place map[K]int // a key's place in Keys, made past fewKeys of them
}

// fewKeys is how many keys find compares one by one before it hashes: a
// run has a few clients, lock keys and parties, and comparing them is
// cheaper than hashing (the check looks a key up for most events).
const fewKeys = 16

// find is k's place in Keys.
func (g *groups[K]) find(k K) (int, bool) {
	if g.place != nil {
		s, ok := g.place[k]
		return s, ok
	}
	for s, x := range g.Keys {
		if x == k {
			return s, true
		}
	}
	return 0, false
}

// has reports a key with indexes.
func (g *groups[K]) has(k K) bool {
	_, ok := g.find(k)
	return ok
}

// get is k's indexes, nil for a key with none.
func (g *groups[K]) get(k K) []int {
	if s, ok := g.find(k); ok {
		return g.lists[s]
	}
	return nil
}

// all yields each key and its indexes, keys in first-seen order.
func (g *groups[K]) all() iter.Seq2[K, []int] {
	return func(yield func(K, []int) bool) {
		for s, k := range g.Keys {
			if !yield(k, g.lists[s]) {
				return
			}
		}
	}
}

// add gives k the next place if it has none, and returns its place.
func (g *groups[K]) add(k K) int {
	if s, ok := g.find(k); ok {
		return s
	}
	g.Keys = append(g.Keys, k)
	switch {
	case g.place != nil:
		g.place[k] = len(g.Keys) - 1
	case len(g.Keys) > fewKeys:
		g.place = make(map[K]int, 2*len(g.Keys))
		for s, x := range g.Keys {
			g.place[x] = s
		}
	}
	return len(g.Keys) - 1
}

// groupBy lists the indexes 0..n-1 by key; an index whose key reports
// false is left out. It is a counting sort: count each key's indexes,
// give each key its share of one array (so that an append to one list
// cannot write into the next), then fill the shares in index order.
// Consecutive indexes often share a key: it is looked up once per run of
// them.
func groupBy[K comparable](n int, key func(int) (K, bool)) groups[K] {
	g := groups[K]{Keys: make([]K, 0, fewKeys)}
	place := make([]int32, n)        // each index's key's place in Keys, -1 if left out (int32: n can be millions of events)
	sizes := make([]int, 0, fewKeys) // each key's count of indexes, by place
	var last K
	p := -1 // last's place
	for i := range place {
		k, ok := key(i)
		if !ok {
			place[i] = -1
			continue
		}
		if p < 0 || k != last {
			last, p = k, g.add(k)
		}
		place[i] = int32(p)
		if p == len(sizes) {
			sizes = append(sizes, 0)
		}
		sizes[p]++
	}
	total := 0
	for _, size := range sizes {
		total += size
	}
	all := make([]int, total)
	g.lists = make([][]int, len(g.Keys))
	start := 0
	for s, size := range sizes {
		g.lists[s] = all[start : start : start+size]
		start += size
	}
	for i, s := range place {
		if s >= 0 {
			g.lists[s] = append(g.lists[s], i)
		}
	}
	return g
}
