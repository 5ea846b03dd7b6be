// The lanes of the timeline: one per client thread, node, service or
// other party, in a stable order.

package view

import (
	"sort"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// lanesOf lays out the lanes: client threads grouped by process, then
// Redis nodes, then services, then any other party; each group in natural
// name order.
func (b *viewBuilder) lanesOf() {
	tr := b.tr
	b.nodes = map[string]bool{}
	b.lockKeys = map[string]bool{}
	procs := map[string]bool{}
	threads := map[string]string{} // client -> process
	services := map[string]bool{}
	for _, op := range tr.Ops {
		p := op.Process
		if p == "" {
			p = processOf(op.Client)
		}
		procs[p] = true
		threads[op.Client] = p
		switch op.Kind {
		case model.OpAcquire, model.OpRelease, model.OpRenew:
			b.lockKeys[op.Key] = true
		}
	}
	for _, e := range tr.Events {
		switch {
		case checker.IsNodeEvent(e.Kind):
			b.nodes[e.Party] = true
		case e.Kind == trace.EvService:
			services[e.Party] = true
		case processKinds[e.Kind]:
			procs[e.Party] = true
		}
		if e.Client != "" && (processKinds[e.Kind] || e.Kind == trace.EvThread) {
			threads[e.Client] = processOf(e.Client)
		}
	}
	for n := range b.nodes {
		delete(procs, n)
	}
	// A process with no thread of its own still gets a lane.
	hasThread := map[string]bool{}
	for _, p := range threads {
		hasThread[p] = true
	}
	for p := range procs {
		if !hasThread[p] {
			threads[p] = p
		}
	}
	others := map[string]bool{}
	for _, e := range tr.Events {
		if e.Party == "" || b.nodes[e.Party] || services[e.Party] || procs[e.Party] || isLink(e.Party) {
			continue
		}
		if _, ok := threads[e.Party]; ok {
			continue
		}
		others[e.Party] = true
	}
	b.buildLanes(threads, services, others)
	b.place()
}

// buildLanes adds the lanes in order: threads grouped by process (one
// colour per process), then nodes, services and other parties.
func (b *viewBuilder) buildLanes(threads map[string]string, services, others map[string]bool) {
	procNames := sortedNames(setOf(threads, func(_, p string) string { return p }))
	color := map[string]int{}
	for i, p := range procNames {
		color[p] = i
	}
	clients := make([]string, 0, len(threads))
	for c := range threads {
		clients = append(clients, c)
	}
	sort.Slice(clients, func(i, j int) bool {
		pi, pj := threads[clients[i]], threads[clients[j]]
		if pi != pj {
			return naturalLess(pi, pj)
		}
		return naturalLess(clients[i], clients[j])
	})
	add := func(l viewLane) int {
		b.vm.Lanes = append(b.vm.Lanes, l)
		return len(b.vm.Lanes) - 1
	}
	for _, c := range clients {
		p := threads[c]
		i := add(viewLane{Kind: laneThread, Name: c, Process: p, Color: color[p]})
		b.lanes[c] = i
		b.procLanes[p] = append(b.procLanes[p], i)
	}
	for _, n := range sortedNames(b.nodes) {
		b.lanes[n] = add(viewLane{Kind: laneNode, Name: n, Rows: 1})
	}
	for _, s := range sortedNames(services) {
		b.lanes[s] = add(viewLane{Kind: laneService, Name: s})
	}
	for _, o := range sortedNames(others) {
		b.lanes[o] = add(viewLane{Kind: laneOther, Name: o})
	}
}

// place puts every operation and event on its lane.
func (b *viewBuilder) place() {
	tr := b.tr
	b.vm.OpLane = make([]int, len(tr.Ops))
	hasOps := map[int]bool{}
	for i, op := range tr.Ops {
		b.vm.OpLane[i] = b.laneOf(op.Client)
		hasOps[b.vm.OpLane[i]] = true
	}
	for i := range b.vm.Lanes {
		b.vm.Lanes[i].Compact = b.vm.Lanes[i].Kind == laneThread && !hasOps[i]
	}
	b.vm.EventLane = make([]int, len(tr.Events))
	for i, e := range tr.Events {
		b.vm.EventLane[i] = b.eventLane(e)
	}
}

// eventLane places an event: node and service events on their party's
// lane, a thread's own events on its lane, a process's on its first
// thread's lane.
func (b *viewBuilder) eventLane(e trace.Event) int {
	if b.nodes[e.Party] || e.Kind == trace.EvService {
		return b.laneOf(e.Party)
	}
	if e.Client != "" {
		if l, ok := b.lanes[e.Client]; ok {
			return l
		}
	}
	if ends := linkEnds(e.Party); ends != nil {
		return b.laneOf(ends[0])
	}
	return b.laneOf(e.Party)
}

// laneOf returns the lane of a client, node or party; for a process, its
// first thread's lane.
func (b *viewBuilder) laneOf(name string) int {
	if l, ok := b.lanes[name]; ok {
		return l
	}
	if ls := b.procLanes[name]; len(ls) > 0 {
		return ls[0]
	}
	return -1
}

// partyLanes returns every lane a fault on party hits: a process's
// threads, a node, a service, or both ends of a link ("a->b", "a<->b").
func (b *viewBuilder) partyLanes(party string) []int {
	if ends := linkEnds(party); ends != nil {
		var out []int
		for _, p := range ends {
			out = append(out, b.partyLanes(p)...)
		}
		return out
	}
	if ls := b.procLanes[party]; len(ls) > 0 {
		return ls
	}
	if l, ok := b.lanes[party]; ok {
		return []int{l}
	}
	return nil
}

func isLink(party string) bool { return strings.Contains(party, "->") }

// linkEnds splits a link name ("a->b" one way, "a<->b" both ways) into its
// two parties; nil for anything else.
func linkEnds(party string) []string {
	for _, sep := range []string{"<->", "->"} {
		if a, c, ok := strings.Cut(party, sep); ok {
			return []string{a, c}
		}
	}
	return nil
}
