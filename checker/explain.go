package checker

import (
	"fmt"
	"strings"

	"github.com/locksim/locksim/sim"
)

// timeline indexes the trace's events for explanations.
type timeline struct {
	tr *sim.Trace
}

// keyChanges returns the indexes of events that created, deleted or
// expired key in [from, to].
func (tl timeline) keyChanges(key string, from, to int64) []int {
	var out []int
	for i, e := range tl.tr.Events {
		if e.T < from {
			continue
		}
		if e.T > to {
			break
		}
		if e.Key == key && e.Change != "" {
			out = append(out, i)
		}
	}
	return out
}

// lastCreate is the last event at or before t that created key by client.
func (tl timeline) lastCreate(key, client string, from, t int64) int {
	idx := -1
	for i, e := range tl.tr.Events {
		if e.T > t {
			break
		}
		if e.T >= from && e.Key == key && e.Change == sim.KeyCreated && e.Client == client {
			idx = i
		}
	}
	return idx
}

// pauses returns the pause events of process overlapping [from, to].
func (tl timeline) pauses(process string, from, to int64) []int {
	var out []int
	for i, e := range tl.tr.Events {
		if e.T > to {
			break
		}
		if e.Kind == sim.EvPause && e.Party == process && e.T+e.DurNs >= from {
			out = append(out, i)
		}
	}
	return out
}

// explainOverlap classifies why ov.Second acquired while ov.First held.
func explainOverlap(tl timeline, ov overlap, leaseMs int64) Violation {
	a, b := ov.First, ov.Second
	v := Violation{
		Property: PropMutex,
		Key:      a.Key,
		Clients:  []string{a.Client, b.Client},
		AtMs:     sim.Ms(b.Start),
	}
	if a.End != maxTime {
		v.UntilMs = sim.Ms(a.End)
	}
	held := fmt.Sprintf("%s acquired %s at %s", a.Client, a.Key, fmtMs(a.Start))
	second := fmt.Sprintf("%s acquired it at %s while %s still believed it held the lock", b.Client, fmtMs(b.Start), a.Client)
	if a.End != maxTime {
		second += fmt.Sprintf(" (until %s)", fmtMs(a.End))
	}
	create := tl.lastCreate(a.Key, a.Client, a.Acquire.Call, a.Start)
	if create < 0 {
		v.Cause = CauseLocalLockOnly
		v.Explanation = fmt.Sprintf("%s without creating any key in Redis; %s: the lock is local to each process.", held, second)
		return v
	}
	v.Events = append(v.Events, create)
	changes := tl.keyChanges(a.Key, tl.tr.Events[create].T, b.Start)
	for _, i := range changes {
		if i <= create {
			continue
		}
		e := tl.tr.Events[i]
		switch {
		case e.Change == sim.KeyExpired:
			v.Events = append(v.Events, i)
			v.Cause = CausePrematureExpiry
			expired := fmt.Sprintf("its key expired on %s at %s", e.Party, fmtMs(e.T))
			if ps := tl.pauses(a.Process, a.Start, e.T); len(ps) > 0 {
				p := tl.tr.Events[ps[0]]
				v.Events = append(v.Events, ps[0])
				v.Reason = ReasonPaused
				expired = fmt.Sprintf("%s paused at %s for %s (GC pause); %s", a.Process, fmtMs(p.T), fmtDur(p.DurNs), expired)
			} else if leaseMs > 0 && a.End != maxTime && a.End-a.Start > leaseMs*1e6 {
				v.Reason = ReasonSlowWork
				expired = fmt.Sprintf("its critical section lasted %s, longer than the %d ms lease; %s", fmtDur(a.End-a.Start), leaseMs, expired)
			} else {
				v.Reason = ReasonNoProgress
			}
			v.Explanation = fmt.Sprintf("%s; %s; %s.", held, expired, second)
			return v
		case e.Change == sim.KeyDeleted && e.Client != a.Client:
			v.Events = append(v.Events, i)
			v.Cause = CauseForeignRelease
			v.Explanation = fmt.Sprintf("%s; %s deleted that key at %s (%s) although it was not the owner; %s.",
				held, e.Client, fmtMs(e.T), strings.Join(e.Args, " "), second)
			return v
		}
	}
	v.Cause = CauseUnexplained
	v.Explanation = fmt.Sprintf("%s; %s; no expiry or deletion of the key explains it.", held, second)
	return v
}

const maxTime = int64(^uint64(0) >> 1)

func fmtMs(ns int64) string {
	return fmt.Sprintf("t=%.1f s", float64(ns)/1e9)
}

func fmtDur(ns int64) string {
	if ns >= 1e9 {
		return fmt.Sprintf("%.1f s", float64(ns)/1e9)
	}
	return fmt.Sprintf("%d ms", ns/1e6)
}
