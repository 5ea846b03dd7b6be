package checker

import (
	"strings"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// damage counts harm to the data from ground truth: rows the database
// actually stored, sales the clients completed, writes that landed after
// the writer's lock was gone, set elements lost.
func damage(t *truth, ix holdIndex, initial int) Damage {
	var d Damage
	tr := t.tr
	rows := map[string]int{}
	for i := range tr.Events {
		if e := &tr.Events[i]; e.Kind == trace.EvService && len(e.Args) >= 2 && e.Args[0] == "INSERT" && writeAccepted(e.Reply) {
			rows[e.Args[1]]++
		}
	}
	for _, n := range rows {
		if n > 1 {
			d.DuplicateInserts += n - 1
		}
	}
	sold := 0
	distinct := map[int]bool{}
	// Write events: two operations may share one (insert, write).
	stale, first, late := map[int]bool{}, map[int]bool{}, map[int]bool{}
	rejected := 0 // the refusals the writers saw
	// Refusals that were not of a stale write: of a token not below the
	// highest accepted, or of a holder whose lock's tokens went backwards.
	fresh := map[int]bool{}
	for _, r := range refusedFresh(t) {
		fresh[r.refused.ID] = true
	}
	for _, r := range t.tokenRegressions() {
		for _, op := range t.regressedRefusals(r) {
			fresh[op.ID] = true
		}
	}
	firstWrite := firstWrites(t, ix)
	for _, op := range tr.Ops {
		switch op.Kind {
		case model.OpBuy:
			if s, read, ok := parseBuy(op.Result); ok && s {
				sold++
				distinct[read] = true
			}
		case model.OpWrite:
			if op.Result == model.ResRejected && !fresh[op.ID] {
				rejected++
			}
		}
		if w, h := lateWrite(t, ix, op); w >= 0 {
			switch s, f := laterWrites(t, ix, firstWrite, h, t.tr.Events[w].T); {
			case s:
				stale[w] = true
			case f:
				first[w] = true
			default:
				late[w] = true
			}
		}
	}
	for w := range stale {
		delete(first, w)
		delete(late, w)
	}
	for w := range first {
		delete(late, w)
	}
	// The data's own refusals also count those whose writer had given
	// up (timed out) before the refusal came back.
	d.StaleWritesRejected = max(rejected, refusedWrites(t)-len(fresh))
	d.StaleWritesAccepted = len(stale)
	d.LateWritesFirst = len(first)
	d.HarmlessLateWrites = len(late)
	d.LostUpdates = sold - len(distinct)
	if sold > initial && initial > 0 {
		d.OversoldUnits = sold - initial
	}
	d.LostElements = len(lostAdds(tr))
	return d
}

// accepted reports a protected operation that took effect.
func accepted(op trace.Op) bool {
	switch op.Kind {
	case model.OpInsert:
		return op.Result == model.ResInserted
	case model.OpBuy:
		sold, _, ok := parseBuy(op.Result)
		return ok && sold
	case model.OpAdd, model.OpWrite:
		return op.Result == model.ResOK
	}
	return false
}

// lateWrite returns the event of an accepted protected write that reached
// the resource when its writer no longer held a quorum of live keys on
// Redis, and the hold it was made in; -1 if op is no such write.
func lateWrite(t *truth, ix holdIndex, op trace.Op) (int, int) {
	if !accepted(op) || op.Open() {
		return -1, -1
	}
	hi, ok := ix.indexAt(op.Client, op.Call)
	if !ok || len(t.holdGrants(ix.hs[hi])) == 0 {
		return -1, -1
	}
	h := ix.hs[hi]
	w := -1
	for _, i := range t.clientEvents(op.Client, op.Call, op.Return) {
		if isDataWrite(t, &t.tr.Events[i]) {
			w = i
		}
	}
	if w < 0 || t.liveAt(h.Client, h.Key, t.tr.Events[w].T) >= t.quorum(h.Key) {
		return -1, -1
	}
	return w, hi
}

// firstWrites gives, by index into ix.hs, the time of the first write
// the protected data accepted in each hold, -1 for none: the holds the
// data's history shows. A hold whose every write a fenced store refused
// never happened as far as the data is concerned.
func firstWrites(t *truth, ix holdIndex) []int64 {
	first := make([]int64, len(ix.hs))
	for i := range first {
		first[i] = -1
	}
	for _, op := range t.tr.Ops {
		if !accepted(op) || op.Open() {
			continue
		}
		hi, ok := ix.indexAt(op.Client, op.Call)
		if !ok {
			continue
		}
		at := op.Return
		for _, i := range t.clientEvents(op.Client, op.Call, op.Return) {
			if e := &t.tr.Events[i]; isDataWrite(t, e) {
				at = e.T
				break
			}
		}
		if first[hi] < 0 || at < first[hi] {
			first[hi] = at
		}
	}
	return first
}

// isDataWrite reports an event that changed the protected data.
func isDataWrite(t *truth, e *trace.Event) bool {
	return (e.Kind == trace.EvService || e.Kind == trace.EvCommand) && !t.isLockKey(e.Key) && len(e.Args) > 0 &&
		!isRead(e.Args[0]) && writeAccepted(e.Reply)
}

// laterWrites reports, for a late write of hold hi accepted at time at,
// whether another client's hold of the same lock, granted on Redis after
// hi's grant and before at, had written to the data before at (stale: the
// case fencing refuses) or wrote only after it (first: the late write
// reached the data first, so a fence had no newer token to refuse it
// with). Grants, not the clients' views, order the holds, as a fencing
// token does: a holder that learned of its grant late still has the
// older token.
func laterWrites(t *truth, ix holdIndex, firstWrite []int64, hi int, at int64) (stale, first bool) {
	h := ix.hs[hi]
	granted := grantedAt(t, h)
	for _, j := range ix.byKey.get(h.Key) {
		o := ix.hs[j]
		if o.Client == h.Client || firstWrite[j] < 0 {
			continue
		}
		if og := grantedAt(t, o); og <= granted || og >= at {
			continue
		}
		if firstWrite[j] < at {
			return true, false
		}
		first = true
	}
	return false, first
}

// grantedAt is when hold h was granted on Redis: the latest creation of
// the keys it counts on (its quorum complete), or its start when it
// counts on none.
func grantedAt(t *truth, h hold) int64 {
	at := int64(-1)
	for _, sg := range t.holdGrants(h) {
		at = max(at, sg.g.T)
	}
	if at < 0 {
		return h.Start
	}
	return at
}

// refusedWrites counts the fenced writes (a write op's token sent with
// the request) that the protected data refused, from its own events.
func refusedWrites(t *truth) int {
	fenced := map[[3]string]bool{}
	for _, op := range t.tr.Ops {
		if op.Kind == model.OpWrite && op.Value != "" {
			fenced[[3]string{op.Client, op.Key, op.Value}] = true
		}
	}
	if len(fenced) == 0 {
		return 0
	}
	n := 0
	for i := range t.tr.Events {
		e := &t.tr.Events[i]
		if e.Kind != trace.EvService && e.Kind != trace.EvCommand || !fenced[[3]string{e.Client, e.Key, model.WriteToken(e.Args)}] {
			continue
		}
		if strings.HasPrefix(e.Reply, model.ResRejected) || e.Reply == "(integer) 0" {
			n++
		}
	}
	return n
}

// writeAccepted reports a reply of a resource that took a write: not an
// error, not a fenced refusal, not a script's 0.
func writeAccepted(reply string) bool {
	return !writeErrored(reply) && !strings.HasPrefix(reply, model.ResRejected) && reply != "(integer) 0"
}

// writeErrored reports a reply of a write that did not run.
func writeErrored(reply string) bool {
	return strings.HasPrefix(reply, "(error)") || strings.HasPrefix(reply, "ERR")
}
