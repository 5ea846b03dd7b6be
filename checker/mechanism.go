package checker

import (
	"fmt"
	"strings"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// The notes a lock's code leaves in the trace (trace.EvNote) say what it
// decided where Redis shows nothing: Redisson's renewal bookkeeping lives
// in the client. An explanation that names the mechanism reads them.
const (
	// A lock() that found its name's renewal entry still present joined
	// it and scheduled no watchdog (Redisson #3712, #2515).
	noteNoWatchdog = "watchdog not started"
	// A renewal that failed or answered 0 left its entry in place.
	noteEntryStays = "renewal entry stays"
	// A renewal failed (an error, a WAIT short of the replicas): the
	// watchdog stops (Redisson #4305).
	noteRenewalFailed = "can't update lock expiration"
)

// noteOf returns the last note of process's threads on key within
// [from, to] whose detail contains text; -1 if none.
func (t *truth) noteOf(process, key, text string, from, to int64) int {
	found := -1
	for _, i := range t.partyEvents(process, from, to) {
		e := &t.tr.Events[i]
		if e.Kind == trace.EvNote && e.Key == key && strings.Contains(e.Detail, text) {
			found = i
		}
	}
	return found
}

// noWatchdog explains a hold that started no watchdog because it joined
// a renewal entry an earlier renewal had left: the note of the hold's
// lock() and the note of the renewal that left the entry (-1 when the
// trace has none), with the text. ok is false when the hold had its
// watchdog (or the lock has none to speak of).
func (t *truth) noWatchdog(victim hold, until int64) (text string, evs []int, ok bool) {
	n := t.noteOf(victim.Process, victim.Key, noteNoWatchdog, victim.Acquire.Call, until)
	if n < 0 {
		return "", nil, false
	}
	text = "the hold had no watchdog: its lock() joined a stale renewal entry of an earlier hold instead of starting one"
	evs = []int{n}
	if s := t.noteOf(victim.Process, victim.Key, noteEntryStays, 0, t.tr.Events[n].T); s >= 0 {
		se := t.tr.Events[s]
		what := "a failed renewal"
		switch {
		case strings.Contains(se.Detail, "returned 0"):
			what = "a renewal that answered 0"
		case strings.Contains(se.Detail, "timed out"):
			what = "a renewal that timed out"
		}
		text += fmt.Sprintf(", an entry %s had left at %s (%s)", what, t.p.At(se.T), se.Detail)
		evs = append(evs, s)
	}
	return text, evs, true
}

// renewalFailed returns the note of a failed renewal that stopped the
// watchdog of victim's process on key x within [from, to], and its text;
// -1 if none.
func (t *truth) renewalFailed(victim hold, key string, from, to int64) (int, string) {
	n := t.noteOf(victim.Process, key, noteRenewalFailed, from, to)
	if n < 0 {
		return -1, ""
	}
	e := t.tr.Events[n]
	return n, fmt.Sprintf("the watchdog stopped after a renewal failed at %s (%s)", t.p.At(e.T), e.Detail)
}

// indexGrantsFrom is how many grants make retaken index them: below, a
// scan costs less than the index's allocations.
const indexGrantsFrom = 64

// retaken explains how holder a went on after the rival b had held the
// lock: its own process re-created the key with a command that was not
// an acquire (a keep-alive whose extend takes an expired key back, as
// SET NX does) and reported success, so a never learned it had lost the
// lock. ok is false when no such re-take happened.
func (t *truth) retaken(a, b hold) (string, []int, bool) {
	grants := t.grants
	if len(grants) > indexGrantsFrom {
		if t.byKeyProcess == nil {
			t.byKeyProcess = map[[2]string][]*grant{}
			for _, g := range t.grants {
				k := [2]string{g.Key, model.ProcessOf(g.Owner)}
				t.byKeyProcess[k] = append(t.byKeyProcess[k], g)
			}
		}
		grants = t.byKeyProcess[[2]string{a.Key, a.Process}]
	}
	for _, g := range grants {
		t.visits++
		if g.Key != a.Key || g.T <= b.Start || g.T > a.End || model.ProcessOf(g.Owner) != a.Process {
			continue
		}
		if g.Op >= 0 && t.tr.Ops[g.Op].Kind == model.OpAcquire {
			continue
		}
		e := t.tr.Events[g.Create]
		return fmt.Sprintf("then %s re-took the key with %s on %s at %s, a renewal that creates the key once it has expired, after %s had acquired it: %s never learned it had lost the lock",
			g.Owner, strings.Join(e.Args, " "), e.Party, t.p.At(g.T), b.Client, a.Client), []int{g.Create}, true
	}
	return "", nil, false
}
