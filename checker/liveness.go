package checker

import (
	"fmt"
	"sort"
	"strings"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// lastHeal is when the last fault of the trace ended: after it, the
// world is fault-free and every lock must make progress again.
func lastHeal(tr *trace.Trace) int64 {
	var at int64
	for _, e := range tr.Events {
		switch e.Kind {
		case trace.EvPause, trace.EvPartition, trace.EvFault, trace.EvNodeCrash:
			at = max(at, e.T+max(e.DurNs, 0))
		case trace.EvClockJump, trace.EvHeal, trace.EvResume, trace.EvNodeStart, trace.EvPromote,
			trace.EvDemote, trace.EvCrash, trace.EvRestart, trace.EvDrop, trace.EvTimeout, trace.EvRetry, trace.EvLate:
			at = max(at, e.T)
		}
	}
	return at
}

// liveness checks, after the last fault healed, that waiting clients
// acquire once a lock is free and that no key outlives its holder:
//   - lost-wakeup: a client kept waiting (its acquire in flight) while the
//     key was free on every site for longer than bound;
//   - renewal-after-release: a key its owner's process renewed after it
//     released the lock stayed alive more than bound after the release;
//   - orphan-key: a key stayed alive more than bound after its owner
//     released or died, without a renewal.
func liveness(t *truth, ix holdIndex, bound int64) []Violation {
	if bound <= 0 {
		return nil
	}
	healed := lastHeal(t.tr)
	end := t.tr.Events[len(t.tr.Events)-1].T
	var out []Violation
	out = append(out, lostWakeups(t, healed, end, bound)...)
	out = append(out, outlived(t, ix, healed, end, bound)...)
	return out
}

// lostWakeups finds acquires that waited through a free stretch of their
// key longer than bound, after healed.
func lostWakeups(t *truth, healed, end, bound int64) []Violation {
	var out []Violation
	reported := map[string]bool{}
	gaps := map[string][]freeSpan{}
	for _, op := range t.tr.Ops {
		if op.Kind != model.OpAcquire || reported[op.Client+"\x00"+op.Key] {
			continue
		}
		g, ok := gaps[op.Key]
		if !ok {
			g = t.freeGaps(op.Key, end)
			gaps[op.Key] = g
		}
		s, e, found := longGap(g, max(op.Call, healed), min(t.waitEnd(op), end), bound)
		if !found {
			continue
		}
		reported[op.Client+"\x00"+op.Key] = true
		after := ""
		if healed > 0 {
			after = ", after the last fault ended at " + t.p.At(healed)
		}
		out = append(out, Violation{Property: PropLiveness, Cause: CauseLostWakeup, Key: op.Key,
			Clients: []string{op.Client}, AtMs: trace.Ms(s), UntilMs: trace.Ms(e),
			Explanation: fmt.Sprintf("%s called acquire on %s at %s and was still waiting at %s, although no client held the key in Redis from %s%s: a wake-up was lost.",
				op.Client, op.Key, t.p.At(op.Call), t.p.At(e), t.p.At(s), after)})
	}
	return out
}

// waitEnd is when acquire op stopped waiting: its return, or its
// process's crash, which ends every call in flight.
func (t *truth) waitEnd(op trace.Op) int64 {
	end := ret(op)
	if c, ok := t.crashAt[op.Process]; ok && t.tr.Events[c].T >= op.Call {
		end = min(end, t.tr.Events[c].T)
	}
	return end
}

type freeSpan struct{ a, b int64 }

// freeGaps lists, in time order, the stretches of [0, end] when key had no
// live grant on any site.
func (t *truth) freeGaps(key string, end int64) []freeSpan {
	var busy []freeSpan
	for _, g := range t.grants {
		if g.Key == key {
			busy = append(busy, freeSpan{g.T, g.EndT})
		}
	}
	sort.Slice(busy, func(i, j int) bool { return busy[i].a < busy[j].a })
	var gaps []freeSpan
	free := int64(0)
	for _, s := range busy {
		if s.a > free {
			gaps = append(gaps, freeSpan{free, s.a})
		}
		free = max(free, s.b)
	}
	if end > free {
		gaps = append(gaps, freeSpan{free, end})
	}
	return gaps
}

// longGap finds a gap whose part within [from, to] is longer than bound.
func longGap(gaps []freeSpan, from, to, bound int64) (int64, int64, bool) {
	i := sort.Search(len(gaps), func(i int) bool { return gaps[i].b > from })
	for ; i < len(gaps) && gaps[i].a < to; i++ {
		a, b := max(gaps[i].a, from), min(gaps[i].b, to)
		if b-a > bound {
			return a, b, true
		}
	}
	return 0, 0, false
}

// outlived finds keys alive more than bound after their owner's process
// last held them, the fault-free world included.
func outlived(t *truth, ix holdIndex, healed, end, bound int64) []Violation {
	var out []Violation
	byOwner := groupBy(len(ix.hs), func(i int) ([2]string, bool) { return [2]string{ix.hs[i].Client, ix.hs[i].Key}, true })
	for _, g := range t.grants {
		gone := min(g.EndT, end)
		last, ok := t.lastHeld(ix.hs, byOwner, g)
		if !ok {
			continue
		}
		// A key no hold of its owner's process covered after it was
		// created (an acquire whose caller gave up on it) belonged to
		// nobody from its creation.
		unheld := last < g.T
		last = max(last, g.T)
		if gone-max(last, healed) <= bound {
			continue
		}
		v := Violation{Property: PropLiveness, Cause: CauseOrphanKey, Key: g.Key, Clients: []string{g.Owner},
			AtMs: trace.Ms(last), UntilMs: trace.Ms(gone), Nodes: []string{g.Node}, Events: []int{g.Create}}
		var after []int
		for _, r := range g.Renewals {
			if t.tr.Events[r].T > last {
				after = append(after, r)
			}
		}
		alive := fmt.Sprintf("alive on %s until %s", g.Node, t.p.At(gone))
		if g.End < 0 {
			alive = fmt.Sprintf("still alive on %s when the run ended at %s", g.Node, t.p.At(end))
		}
		v.Explanation = fmt.Sprintf("%s's key %s (created at %s) was %s, %s after %s last held the lock at %s", g.Owner, g.Key,
			t.p.At(g.T), alive, t.p.Dur(gone-last), model.ProcessOf(g.Owner), t.p.At(last))
		if unheld {
			v.Explanation = fmt.Sprintf("%s's key %s (created at %s by an acquire its caller did not see succeed%s) was %s, %s after its creation, and %s never held the lock meanwhile",
				g.Owner, g.Key, t.p.At(g.T), t.interruptBefore(g, &v), alive, t.p.Dur(gone-last), model.ProcessOf(g.Owner))
		}
		if len(after) > 0 {
			v.Cause, v.Events = CauseRenewalAfterRelease, append(v.Events, after...)
			r := t.tr.Events[after[len(after)-1]]
			v.Explanation += fmt.Sprintf(": its process kept renewing it (%d times, the last with %s at %s).",
				len(after), strings.Join(r.Args, " "), t.p.At(r.T))
		} else {
			v.Explanation += ": nothing released it."
		}
		out = append(out, v)
	}
	return out
}

// lastHeld is when the owner's process last believed it held g's key
// (the end of its last hold that started before the key vanished; 0
// when none did), and false while a hold lasts to the end of the run.
// byOwner groups the holds hs by client and key.
func (t *truth) lastHeld(hs []hold, byOwner groups[[2]string], g *grant) (int64, bool) {
	var last int64
	for _, c := range t.processClients(model.ProcessOf(g.Owner)) {
		for _, i := range byOwner.get([2]string{c, g.Key}) {
			h := hs[i]
			if h.Start > g.EndT {
				break
			}
			if h.End == maxTime {
				return 0, false // still held at the end of the run
			}
			last = max(last, h.End)
		}
	}
	return last, true
}

// interruptBefore cites the last interrupt of g's owner's process before
// g's key was created, if any: the caller that gave up on the acquire.
func (t *truth) interruptBefore(g *grant, v *Violation) string {
	proc := model.ProcessOf(g.Owner)
	for i := g.Create - 1; i >= 0; i-- {
		e := t.tr.Events[i]
		if e.Party == proc && trace.CitesFault(e, trace.FaultInterrupt) {
			v.Events = append(v.Events, i)
			return ": it was interrupted at " + t.p.At(e.T)
		}
	}
	return ""
}
