// Holds: what each client believed it held, and the lease Redis gave it.

package view

import (
	"sort"

	"github.com/locksim/locksim/checker"
)

// holds takes the holds the checker judged (nested acquires inside one
// hold, a crash ending one), in the order their acquires were invoked,
// and measures each one's lease.
func (b *viewBuilder) holds(res *checker.Result) {
	hs := res.Holds()
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].Acquire < hs[j].Acquire })
	for _, h := range hs {
		b.vm.Holds = append(b.vm.Holds, viewHold{Lane: b.laneOf(h.Client), Client: h.Client, Key: h.Key,
			Acquire: h.Acquire, Release: h.Release, Start: h.Start, End: min(h.End, b.vm.EndNs)})
	}
	spans := b.spansByOwner()
	nodes := sortedNames(b.nodes)
	for i := range b.vm.Holds {
		b.lease(&b.vm.Holds[i], spans, nodes)
	}
}

// keyOwner names the key spans of one key created by one client.
type keyOwner struct{ key, owner string }

// spansByOwner indexes the key spans by key and owner, each list in
// order of start, so a hold finds its spans without scanning them all.
func (b *viewBuilder) spansByOwner() map[keyOwner][]int {
	m := map[keyOwner][]int{}
	for i, s := range b.vm.Keys {
		k := keyOwner{s.Key, s.Owner}
		m[k] = append(m[k], i)
	}
	for _, l := range m {
		sort.SliceStable(l, func(i, j int) bool { return b.vm.Keys[l[i]].Start < b.vm.Keys[l[j]].Start })
	}
	return m
}

func (b *viewBuilder) lease(h *viewHold, spans map[keyOwner][]int, nodes []string) {
	acq := b.tr.Ops[h.Acquire]
	h.Spans = []int{}
	h.Quorum = 1
	if !b.failover {
		// Independent masters (Redlock): a majority of them, counting
		// the ones that are down.
		masters := 0
		for _, n := range nodes {
			if contains(b.masters[n], acq.Return) {
				masters++
			}
		}
		h.Quorum = max(masters, 1)/2 + 1
	}
	own := spans[keyOwner{h.Key, h.Client}]
	from := sort.Search(len(own), func(i int) bool { return b.vm.Keys[own[i]].Start >= acq.Call })
	for _, i := range own[from:] {
		b.visits++
		if b.vm.Keys[i].Start > h.End {
			break
		}
		h.Spans = append(h.Spans, i)
	}
	sort.Ints(h.Spans)
	var iv [][2]int64
	for _, i := range h.Spans {
		s := b.vm.Keys[i]
		for _, w := range b.serving[s.Node] {
			if lo, hi := max(s.Start, w[0]), min(s.End, w[1]); lo < hi {
				iv = append(iv, [2]int64{lo, hi})
			}
		}
	}
	h.Lease = atLeast(iv, h.Quorum)
	h.NoLease = subtract([2]int64{h.Start, h.End}, h.Lease)
}

func contains(iv [][2]int64, t int64) bool {
	for _, w := range iv {
		if w[0] <= t && t < w[1] {
			return true
		}
	}
	return false
}

// atLeast returns the union of the times covered by at least q of the
// intervals.
func atLeast(iv [][2]int64, q int) [][2]int64 {
	type edge struct {
		t int64
		d int
	}
	var edges []edge
	for _, w := range iv {
		edges = append(edges, edge{w[0], 1}, edge{w[1], -1})
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].t != edges[j].t {
			return edges[i].t < edges[j].t
		}
		return edges[i].d < edges[j].d
	})
	out := [][2]int64{}
	n := 0
	var from int64
	for _, e := range edges {
		before := n
		n += e.d
		switch {
		case before < q && n >= q:
			from = e.t
		case before >= q && n < q:
			if len(out) > 0 && out[len(out)-1][1] == from {
				out[len(out)-1][1] = e.t
			} else if e.t > from {
				out = append(out, [2]int64{from, e.t})
			}
		}
	}
	return out
}

// subtract returns the parts of w not covered by the sorted, disjoint
// intervals cover.
func subtract(w [2]int64, cover [][2]int64) [][2]int64 {
	out := [][2]int64{}
	at := w[0]
	for _, c := range cover {
		if c[1] <= at || c[0] >= w[1] {
			continue
		}
		if c[0] > at {
			out = append(out, [2]int64{at, c[0]})
		}
		at = max(at, c[1])
	}
	if at < w[1] {
		out = append(out, [2]int64{at, w[1]})
	}
	return out
}
