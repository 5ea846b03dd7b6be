// Lock keys on nodes: each key's life (created to expired, deleted or
// lost) with its owner and TTL, as the checker followed it, placed on
// rows; and the roles of the parties.

package view

import (
	"sort"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/sim/trace"
)

// keySpans takes every life of a lock key on every node from the
// checker's result, and packs them on rows.
func (b *viewBuilder) keySpans(res *checker.Result) {
	for _, s := range res.KeySpans() {
		ttl := make([]ttlPoint, len(s.TTL))
		for i, p := range s.TTL {
			ttl[i] = ttlPoint{T: p.T, TTL: p.TTL, Ev: p.Ev}
		}
		b.vm.Keys = append(b.vm.Keys, viewKeySpan{Lane: b.laneOf(s.Node), Node: s.Node, Key: s.Key, Owner: s.Owner,
			Start: s.Start, End: min(s.End, b.vm.EndNs), StartEv: s.StartEv, EndEv: s.EndEv, EndHow: s.EndHow, TTL: ttl})
	}
	b.keyRows()
}

// keyRows packs each node's key spans on rows so that overlapping ones do
// not collide, keeping a key on its row when the row is free.
func (b *viewBuilder) keyRows() {
	type nk struct{ node, key string }
	vm := b.vm
	rowEnd := map[string][]int64{}
	order := make([]int, len(vm.Keys))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, c int) bool { return vm.Keys[order[a]].Start < vm.Keys[order[c]].Start })
	byKeyRow := map[nk]int{}
	for _, i := range order {
		s := &vm.Keys[i]
		ends := rowEnd[s.Node]
		row := -1
		// Keep a key on the row it had before when that row is free.
		if r, ok := byKeyRow[nk{s.Node, s.Key}]; ok && ends[r] <= s.Start {
			row = r
		}
		for r := 0; row < 0 && r < len(ends); r++ {
			if ends[r] <= s.Start {
				row = r
			}
		}
		if row < 0 {
			row = len(ends)
			ends = append(ends, 0)
		}
		ends[row] = s.End
		rowEnd[s.Node] = ends
		byKeyRow[nk{s.Node, s.Key}] = row
		s.Row = row
		if l := s.Lane; l >= 0 && row+1 > vm.Lanes[l].Rows {
			vm.Lanes[l].Rows = row + 1
		}
	}
}

// roles finds when each node served as an up master: a node is a master
// from the start when its first role change is a demotion, or when it has
// none and clients sent it commands; a promotion makes it one, a demotion
// ends it; a crash takes it down until it starts again.
func (b *viewBuilder) roles() {
	tr := b.tr
	end := b.vm.EndNs
	b.serving = map[string][][2]int64{}
	b.masters = map[string][][2]int64{}
	for _, n := range sortedNames(b.nodes) {
		type change struct {
			t    int64
			kind string
		}
		var changes []change
		clientCmds := false
		for _, e := range tr.Events {
			if e.Party != n {
				continue
			}
			switch e.Kind {
			case trace.EvPromote, trace.EvDemote, trace.EvNodeCrash, trace.EvNodeStart:
				if e.Kind == trace.EvPromote {
					b.failover = true
				}
				if len(changes) == 0 || changes[len(changes)-1] != (change{e.T, e.Kind}) {
					changes = append(changes, change{e.T, e.Kind})
				}
			case trace.EvCommand:
				if e.Client != "" {
					clientCmds = true
				}
			}
		}
		master := clientCmds
		for _, c := range changes {
			if c.kind == trace.EvPromote {
				master = false
				break
			}
			if c.kind == trace.EvDemote {
				master = true
				break
			}
		}
		up := true
		var serveFrom, masterFrom int64 = 0, 0
		flush := func(t int64) {
			if master && up && t > serveFrom {
				b.serving[n] = append(b.serving[n], [2]int64{serveFrom, t})
			}
		}
		for _, c := range changes {
			flush(c.t)
			wasMaster := master
			switch c.kind {
			case trace.EvPromote:
				master = true
			case trace.EvDemote:
				master = false
			case trace.EvNodeCrash:
				up = false
			case trace.EvNodeStart:
				up = true
			}
			if wasMaster && !master {
				b.masters[n] = append(b.masters[n], [2]int64{masterFrom, c.t})
			}
			if !wasMaster && master {
				masterFrom = c.t
			}
			serveFrom = c.t
		}
		flush(end + 1)
		if master {
			b.masters[n] = append(b.masters[n], [2]int64{masterFrom, end + 1})
		}
	}
}
