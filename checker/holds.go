package checker

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// hold is one interval during which a client believed it held a lock:
// from its acquire's return to its release's call, its process's crash,
// or the end of time. A reentrant client's nested acquires and releases
// fall inside one hold.
type hold struct {
	Key     string
	Client  string
	Process string
	Acquire acquireOp // the outermost acquire
	Release int       // the op id of the release that ended it, -1
	Start   int64
	End     int64 // maxTime if never released
	Crash   int   // the crash event that ended it, -1
	Nested  bool  // the client acquired again while holding
	// Lapsed says why a recorded history's hold with no release ended
	// (Options.History): lapsedSeen, its holder's last operation;
	// lapsedLease, its lease (it could not have run out before). "" for a
	// hold a release, a crash or the end of time ended.
	Lapsed string
	// Refused: a recorded release of this hold failed (at RefusedAt, its
	// invoke) and so did not end it; Next is the invoke of its client's
	// next acquire of the key that returned ok (maxTime: none), where the
	// hold ends at the latest.
	Refused   bool
	RefusedAt int64
	Next      int64
}

// Why a recorded history's hold with no release ended.
const (
	lapsedSeen  = "seen"
	lapsedLease = "lease"
)

// acquireOp is what a hold keeps of its acquire (a trace.Op is 120
// bytes, copied with every hold).
type acquireOp struct {
	ID   int
	Call int64
}

// holds lists every hold in the trace, by start time, and marks in
// t.heldAtRelease the releases that found their client holding the key
// and ended (or, nested, narrowed) its hold.
func holds(t *truth) []hold {
	type state struct{ idx, count int }
	open := map[[2]string]state{}
	refused := map[[2]string]int{} // holds whose release failed, until their client's next acquire or release
	out := make([]hold, 0, acquiredOK(t.tr.Ops))
	t.heldAtRelease = make([]bool, len(t.tr.Ops))
	for i, op := range t.tr.Ops {
		k := [2]string{op.Client, op.Key}
		switch op.Kind {
		case model.OpAcquire:
			if op.Result != model.ResOK || op.Open() {
				continue
			}
			if s, ok := open[k]; ok {
				open[k] = state{s.idx, s.count + 1}
				out[s.idx].Nested = true
				continue
			}
			if r, ok := refused[k]; ok {
				out[r].Next = op.Call
				delete(refused, k)
			}
			open[k] = state{idx: len(out), count: 1}
			out = append(out, hold{Key: op.Key, Client: op.Client, Process: op.Process, Acquire: acquireOp{op.ID, op.Call},
				Release: -1, Start: op.Return, End: maxTime, Crash: -1, Next: maxTime})
		case model.OpRelease:
			if r, ok := refused[k]; ok && !t.refusedRelease(op) {
				// Released again after a release that failed: this one ends it.
				t.heldAtRelease[i] = true
				out[r].End, out[r].Release = op.Call, op.ID
				delete(refused, k)
				continue
			}
			if s, ok := open[k]; ok {
				if t.refusedRelease(op) {
					// A recorded release that failed did not happen (the
					// lock history leaves it out, as a failed acquire):
					// the key stays its holder's until its lease runs
					// out (lapse), or for good without one.
					out[s.idx].Refused, out[s.idx].RefusedAt = true, op.Call
					if s.count == 1 {
						refused[k] = s.idx
						delete(open, k)
					}
					continue
				}
				t.heldAtRelease[i] = true
				if s.count--; s.count == 0 {
					out[s.idx].End, out[s.idx].Release = op.Call, op.ID
					delete(open, k)
				} else {
					open[k] = s
				}
			}
		}
	}
	for i := range out {
		h := &out[i]
		if c, ok := t.crashAt[h.Process]; ok && t.tr.Events[c].T < h.End {
			h.End, h.Crash, h.Release = t.tr.Events[c].T, c, -1
		}
		if t.history && h.End == maxTime {
			t.lapse(h)
		}
		if h.Refused && h.End > h.Next {
			h.End, h.Lapsed = h.Next, lapsedSeen // its client acquired the key again: acting under it
		}
	}
	slices.SortStableFunc(out, func(a, b hold) int { return cmp.Compare(a.Start, b.Start) })
	return out
}

// acquiredOK counts the acquires that returned OK: at most one hold each.
func acquiredOK(ops []trace.Op) int {
	n := 0
	for i := range ops {
		if ops[i].Kind == model.OpAcquire && ops[i].Result == model.ResOK {
			n++
		}
	}
	return n
}

// overlap is a pair of holds on one key by different clients: Second
// started while First was still held.
type overlap struct {
	First, Second hold
}

// overlaps finds, for each hold, the earliest other hold that started
// while it was held. Holds are sorted by start.
func overlaps(ix holdIndex) []overlap {
	hs := ix.hs
	var out []overlap
	for first, h := range hs {
		idx := ix.byKey.get(h.Key)
		if idx[0] != first {
			continue // the key's first hold walks them all
		}
		for n, i := range idx {
			a := hs[i]
			for _, j := range idx[n+1:] {
				b := hs[j]
				if b.Start >= a.End {
					break
				}
				if b.Client != a.Client {
					out = append(out, overlap{First: a, Second: b})
					break
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b overlap) int { return cmp.Compare(a.Second.Start, b.Second.Start) })
	return out
}

// holdIndex finds the hold of a client that covers a time.
type holdIndex struct {
	hs       []hold
	byClient groups[string]
	byKey    groups[string]
	reach    map[string][]int64 // by key, along byKey's holds: the latest End among them so far
}

func indexHolds(hs []hold) holdIndex {
	ix := holdIndex{hs: hs,
		byClient: groupBy(len(hs), func(i int) (string, bool) { return hs[i].Client, true }),
		byKey:    groupBy(len(hs), func(i int) (string, bool) { return hs[i].Key, true }),
		reach:    map[string][]int64{},
	}
	for key, idx := range ix.byKey.all() {
		reach := make([]int64, len(idx))
		r := int64(math.MinInt64)
		for n, i := range idx {
			r = max(r, hs[i].End)
			reach[n] = r
		}
		ix.reach[key] = reach
	}
	return ix
}

// holds reports whether client held key at time t.
func (ix holdIndex) holds(client, key string, t int64) bool {
	idx := ix.byClient.get(client)
	n := sort.Search(len(idx), func(i int) bool { return ix.hs[idx[i]].Start > t })
	for i := n - 1; i >= 0; i-- {
		if h := &ix.hs[idx[i]]; h.Key == key {
			return h.End >= t // the client's last hold of key that started by t
		}
	}
	return false
}

// at returns client's hold that started at or before t and had not ended
// before t.
func (ix holdIndex) at(client string, t int64) (hold, bool) {
	if i, ok := ix.indexAt(client, t); ok {
		return ix.hs[i], true
	}
	return hold{}, false
}

// indexAt is at's hold as an index into ix.hs.
func (ix holdIndex) indexAt(client string, t int64) (int, bool) {
	idx := ix.byClient.get(client)
	n := sort.Search(len(idx), func(i int) bool { return ix.hs[idx[i]].Start > t })
	for i := n - 1; i >= 0 && i >= n-4; i-- {
		if ix.hs[idx[i]].End >= t {
			return idx[i], true
		}
	}
	return -1, false
}

// lapse ends a recorded history's hold h that no release ended where the
// history stops showing it: at its holder's last sign of acting under
// the lock (the return of each later operation of its process, or the
// invoke of one that never returned), or when its key's lease could
// have run out, whichever is later. A key that expired (or a failed
// renew found gone) by then lets another client in legally; a key
// another client took or deleted stays owed until its lease would have
// run out. A hold with no lease, or whose key outlived the history,
// keeps the lock to the end. Only what shows the holder acting counts
// (actsUnder, and its reads of the data): a renew or a release that
// failed shows the key gone, not the holder going on under it.
func (t *truth) lapse(h *hold) {
	gs := t.holdGrants(*h)
	if len(gs) == 0 {
		return
	}
	lease := int64(math.MinInt64)
	for _, sg := range gs {
		g := sg.g
		switch {
		case g.End >= 0 && g.EndKind == endExpired:
			lease = max(lease, g.EndT)
		case g.End < 0 || g.Deadline <= 0:
			return
		default:
			lease = max(lease, g.Deadline)
		}
	}
	seen := h.Start
	for _, c := range t.processClients(h.Process) {
		for _, id := range t.opsBy.get(c) {
			if op := &t.tr.Ops[id]; op.Call >= h.Start && op.Call < h.Next && op.ID != h.Acquire.ID && actsUnder(op, h.Key) {
				if op.Open() {
					seen = max(seen, op.Call)
				} else {
					seen = max(seen, op.Return)
				}
			}
		}
		for _, i := range t.byClient.get(c) {
			if e := &t.tr.Events[i]; e.T >= h.Start && e.T < h.Next && e.Kind == trace.EvService && len(e.Args) > 0 && e.Args[0] == "read" {
				seen = max(seen, e.T) // a read of the data, at its return
			}
		}
	}
	h.End, h.Lapsed = lease, lapsedLease
	if seen > lease {
		h.End, h.Lapsed = seen, lapsedSeen
	}
}

// actsUnder reports whether op, an operation of a holder of key, shows
// it acting under the lock: a write of the data (whatever the storage
// answered, or with no answer), or a renew or release of key that
// returned ok. A renew or release that failed, or whose outcome is
// unknown, does not; nor does an operation on another lock.
func actsUnder(op *trace.Op, key string) bool {
	switch op.Kind {
	case model.OpWrite:
		return true
	case model.OpRenew, model.OpRelease:
		return op.Key == key && !op.Open() && op.Result == model.ResOK
	}
	return false
}

// refusedRelease reports a recorded history's release that failed: it
// did not happen.
func (t *truth) refusedRelease(op trace.Op) bool {
	return t.history && op.Kind == model.OpRelease && !op.Open() && op.Result == model.ResNotOwner
}
