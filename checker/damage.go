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
	stale := map[int]bool{} // write events: two operations may share one (insert, write)
	for _, op := range tr.Ops {
		switch op.Kind {
		case model.OpBuy:
			if s, read, ok := parseBuy(op.Result); ok && s {
				sold++
				distinct[read] = true
			}
		case model.OpWrite:
			if op.Result == model.ResRejected {
				d.StaleWritesRejected++
			}
		}
		if w := staleWrite(t, ix, op); w >= 0 {
			stale[w] = true
		}
	}
	d.StaleWritesAccepted = len(stale)
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

// staleWrite returns the event of an accepted protected write that reached
// the resource when its writer no longer held a quorum of live keys on
// Redis; -1 if op is no such write.
func staleWrite(t *truth, ix holdIndex, op trace.Op) int {
	if !accepted(op) || op.Open() {
		return -1
	}
	h, ok := ix.at(op.Client, op.Call)
	if !ok || len(t.holdGrants(h)) == 0 {
		return -1
	}
	w := -1
	for _, i := range t.clientEvents(op.Client, op.Call, op.Return) {
		e := &t.tr.Events[i]
		if (e.Kind == trace.EvService || e.Kind == trace.EvCommand) && !t.isLockKey(e.Key) && len(e.Args) > 0 &&
			!isRead(e.Args[0]) && writeAccepted(e.Reply) {
			w = i
		}
	}
	if w < 0 || t.liveAt(h.Client, h.Key, t.tr.Events[w].T) >= t.quorum(h.Key) {
		return -1
	}
	return w
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
