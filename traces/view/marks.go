// Shades (pauses, partitions, faults) and the violations on the timeline.

package view

import (
	"math"
	"sort"
	"strconv"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

// The view model is what the HTML timeline draws: the raw events and
// operations (for tooltips) plus what is derived from them here, where it
// can be tested: lanes, holds and their lease windows, the lock key's life
// on every node with its owner and TTL, fault shading, and the items each
// violation points at. The page's script only lays it out.

// Lane kinds.

// shades turns pauses, partitions and crashes into intervals on the lanes
// of the party they hit.
func (b *viewBuilder) shades() {
	tr := b.tr
	vm := b.vm
	end := vm.EndNs
	add := func(party, kind string, start, stop int64, ev int, label string) {
		if id := tr.Events[ev].Fault; id > 0 {
			label = "fault #" + strconv.Itoa(id) + ": " + label
		}
		for _, l := range b.partyLanes(party) {
			vm.Shades = append(vm.Shades, viewShade{Lane: l, Kind: kind, Start: start, End: max(stop, start), Ev: ev, Label: label})
		}
	}
	// next finds the first event of kind on party after i (and matching).
	next := func(i int, kind, party string, match func(trace.Event) bool) (int64, bool) {
		for j := i + 1; j < len(tr.Events); j++ {
			if e := tr.Events[j]; e.Kind == kind && e.Party == party && (match == nil || match(e)) {
				return e.T, true
			}
		}
		return 0, false
	}
	for i, e := range tr.Events {
		switch e.Kind {
		case trace.EvPause:
			stop := e.T + e.DurNs
			if e.DurNs <= 0 {
				if t, ok := next(i, trace.EvResume, e.Party, nil); ok {
					stop = t
				} else {
					stop = end
				}
			}
			what := "pause"
			if e.Detail == trace.FaultGCPause || e.Detail == "" {
				what = "GC pause"
			} else {
				what = "pause (" + e.Detail + ")"
			}
			add(e.Party, "pause", e.T, stop, i, what+" "+fmtDurNs(stop-e.T))
		case trace.EvPartition:
			stop := end
			if e.DurNs > 0 {
				stop = e.T + e.DurNs
			}
			if t, ok := next(i, trace.EvHeal, e.Party, func(h trace.Event) bool { return h.Detail == "" || h.Detail == e.Detail }); ok && t < stop {
				stop = t
			}
			label := "partition " + e.Party
			if e.Detail == "delay" {
				label = "slow link " + e.Party
			}
			add(e.Party, "partition", e.T, stop, i, label+" "+fmtDurNs(stop-e.T))
		case trace.EvFault:
			// A fault with a duration (replication lag, ...) that has no
			// event kind of its own. An anchor resolving is a mark: its
			// fault is drawn where it fired, by the fault's own event.
			if e.DurNs > 0 && !traces.IsAnchorEvent(e) {
				label := e.Detail
				if label == "" {
					label = "fault"
				}
				add(e.Party, "fault", e.T, e.T+e.DurNs, i, label+" for "+fmtDurNs(e.DurNs))
			}
		case trace.EvCrash:
			stop, ok := next(i, trace.EvRestart, e.Party, nil)
			if !ok {
				stop = end
			}
			add(e.Party, "crash", e.T, stop, i, "crashed")
		case trace.EvNodeCrash:
			stop, ok := next(i, trace.EvNodeStart, e.Party, nil)
			if !ok {
				stop = end
			}
			add(e.Party, "down", e.T, stop, i, "down "+fmtDurNs(stop-e.T))
		}
	}
	b.shadeRows()
}

// shadeRows puts overlapping fault shades of a lane on separate rows.
func (b *viewBuilder) shadeRows() {
	vm := b.vm
	order := make([]int, len(vm.Shades))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, c int) bool { return vm.Shades[order[a]].Start < vm.Shades[order[c]].Start })
	rowEnd := map[int][]int64{}
	for _, i := range order {
		sh := &vm.Shades[i]
		ends := rowEnd[sh.Lane]
		row := len(ends)
		for r, e := range ends {
			if e <= sh.Start {
				row = r
				break
			}
		}
		if row == len(ends) {
			ends = append(ends, 0)
		}
		ends[row] = sh.End
		rowEnd[sh.Lane] = ends
		sh.Row = row
	}
	for i := range vm.Lanes {
		vm.Lanes[i].FaultRows = max(len(rowEnd[i]), 1)
	}
}

// violations finds, for each violation, the holds and operations it is
// about and a window that shows them.
func (b *viewBuilder) violations(vs []checker.Violation) {
	vm := b.vm
	vm.Violations = []viewViolation{}
	if len(vs) > 0 {
		b.holdsOf = indexBy(len(vm.Holds), func(i int) string { return vm.Holds[i].Client })
		b.opsOf = indexBy(len(vm.Ops), func(i int) string { return vm.Ops[i].Client })
	}
	for _, v := range vs {
		at := v.AtNs()
		until := at
		if v.UntilMs > 0 {
			until = int64(math.Round(v.UntilMs * 1e6))
		}
		vv := viewViolation{Violation: v, Heading: checker.Heading(v.Property), AtNs: at, UntilNs: until, Holds: []int{}, Ops: []int{}, Lanes: []int{}}
		if vv.Clients == nil {
			vv.Clients = []string{}
		}
		if vv.Events == nil {
			vv.Events = []int{}
		}
		lo, hi := at, until
		seenHold := map[int]bool{}
		addHold := func(i int) {
			if i >= 0 && !seenHold[i] {
				seenHold[i] = true
				vv.Holds = append(vv.Holds, i)
				lo, hi = min(lo, vm.Holds[i].Start), max(hi, vm.Holds[i].End)
			}
		}
		for _, c := range v.Clients {
			if l := b.laneOf(c); l >= 0 {
				vv.Lanes = append(vv.Lanes, l)
			}
			if v.Property == checker.PropMutex || b.lockKeys[v.Key] {
				addHold(b.holdAt(c, v.Key, at, until))
				continue
			}
			if oi := b.opAt(c, v.Key, at); oi >= 0 {
				op := vm.Ops[oi]
				vv.Ops = append(vv.Ops, oi)
				lo, hi = min(lo, op.Call), max(hi, opEnd(op, vm.EndNs))
				addHold(b.holdAt(c, "", op.Call, op.Call))
			}
		}
		for _, ei := range v.Events {
			if ei >= 0 && ei < len(vm.Events) {
				e := vm.Events[ei]
				lo, hi = min(lo, e.T), max(hi, e.T+max(e.DurNs, 0))
			}
		}
		vv.Start, vv.End = max(lo, 0), min(max(hi, lo+1), vm.EndNs)
		vm.Violations = append(vm.Violations, vv)
	}
}

func opEnd(op trace.Op, end int64) int64 {
	if op.Open() {
		return end
	}
	return op.Return
}

// holdAt returns client's hold on key (any lock key if key is "") that
// overlaps [at, until], the nearest one if several do; -1 if none.
func (b *viewBuilder) holdAt(client, key string, at, until int64) int {
	best, bestD := -1, int64(math.MaxInt64)
	for _, i := range b.holdsOf[client] {
		b.visits++
		h := b.vm.Holds[i]
		if key != "" && h.Key != key {
			continue
		}
		d := int64(0)
		switch {
		case h.End < at:
			d = at - h.End
		case h.Start > until:
			d = h.Start - until
		}
		if d == 0 && h.Start == at {
			d = -1 // the hold that starts at the violation is the one
		}
		if d < bestD {
			best, bestD = i, d
		}
	}
	if bestD > 0 && key == "" {
		return -1 // a resource operation outside any hold
	}
	return best
}

// opAt returns client's non-lock operation on key whose interval holds
// at, or the nearest one; -1 if none.
func (b *viewBuilder) opAt(client, key string, at int64) int {
	best, bestD := -1, int64(math.MaxInt64)
	for _, i := range b.opsOf[client] {
		b.visits++
		op := b.vm.Ops[i]
		if op.Key != key {
			continue
		}
		switch op.Kind {
		case model.OpAcquire, model.OpRelease, model.OpRenew:
			continue
		}
		var d int64
		switch end := opEnd(op, b.vm.EndNs); {
		case end < at:
			d = at - end
		case op.Call > at:
			d = op.Call - at
		}
		if d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// indexBy lists 0..n-1 by the client each is of, in order.
func indexBy(n int, client func(int) string) map[string][]int {
	m := map[string][]int{}
	for i := range n {
		m[client(i)] = append(m[client(i)], i)
	}
	return m
}
