// Holds: what each client believed it held, and the lease Redis gave it.

package view

import (
	"sort"

	"github.com/locksim/locksim/model"
)

// The view model is what the HTML timeline draws: the raw events and
// operations (for tooltips) plus what is derived from them here, where it
// can be tested: lanes, holds and their lease windows, the lock key's life
// on every node with its owner and TTL, fault shading, and the items each
// violation points at. The page's script only lays it out.

// Lane kinds.

// holds mirrors the checker's holds and measures each one's lease.
func (b *viewBuilder) holds() {
	vm := b.vm
	open := map[[2]string]int{}
	for _, op := range b.tr.Ops {
		k := [2]string{op.Client, op.Key}
		switch op.Kind {
		case model.OpAcquire:
			if op.Result == model.ResOK && !op.Open() {
				open[k] = len(vm.Holds)
				vm.Holds = append(vm.Holds, viewHold{Lane: b.laneOf(op.Client), Client: op.Client, Key: op.Key,
					Acquire: op.ID, Release: -1, Start: op.Return, End: vm.EndNs})
			}
		case model.OpRelease:
			if i, ok := open[k]; ok {
				vm.Holds[i].Release = op.ID
				vm.Holds[i].End = op.Call
				delete(open, k)
			}
		}
	}
	for i := range vm.Holds {
		b.lease(&vm.Holds[i])
	}
}

func (b *viewBuilder) lease(h *viewHold) {
	acq := b.tr.Ops[h.Acquire]
	h.Spans = []int{}
	h.Quorum = 1
	if !b.failover {
		// Independent masters (Redlock): a majority of them, counting
		// the ones that are down.
		masters := 0
		for _, n := range sortedNames(b.nodes) {
			if contains(b.masters[n], acq.Return) {
				masters++
			}
		}
		h.Quorum = max(masters, 1)/2 + 1
	}
	var iv [][2]int64
	for i, s := range b.vm.Keys {
		if s.Key != h.Key || s.Owner != h.Client || s.Start < acq.Call || s.Start > h.End {
			continue
		}
		h.Spans = append(h.Spans, i)
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
