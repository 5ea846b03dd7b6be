package traces

import (
	"strconv"
	"strings"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// An anchored fault (trace.Anchor) has no start time in the schedule: its
// at_ms is 0 and it starts when a client's operation happens. What the
// user is shown is the time it started in the run, read from the trace:
// the event the fault recorded when it was applied.

// Firing is when one fault of a schedule happened in a run.
type Firing struct {
	// AtNs is the virtual time the fault started: its injection's event,
	// or for an anchored fault whose injection changed nothing, the time
	// its anchor resolved plus its offset; for an unanchored one, its
	// scheduled time. -1 when it never started (an anchor that did not
	// happen, a time after the run ended).
	AtNs int64
	// Recorded says the trace holds the event of its injection
	// (trace.KindSpec.Cites). A fault can start and change nothing: a GC
	// pause of a process already paused or crashed.
	Recorded bool
}

// Firings returns when each fault of faults (the schedule of the run
// that recorded tr) happened, read from tr's events.
func Firings(faults []trace.Fault, tr *trace.Trace) []Firing {
	out := make([]Firing, len(faults))
	for i := range out {
		out[i].AtNs = -1
	}
	if tr == nil {
		return out
	}
	anchorAt := make([]int64, len(faults))
	for i := range anchorAt {
		anchorAt[i] = -1
	}
	for _, e := range tr.Events {
		id := e.Fault
		if id < 1 || id > len(faults) || out[id-1].Recorded {
			continue
		}
		switch f := faults[id-1]; {
		case trace.CitesFault(e, f.Kind):
			out[id-1] = Firing{AtNs: e.T, Recorded: true}
		case f.Anchor != nil && anchorAt[id-1] < 0 && e.Kind == trace.EvFault && strings.HasPrefix(e.Detail, anchorDetail):
			anchorAt[id-1] = e.T
		}
	}
	for i, f := range faults {
		switch {
		case out[i].Recorded:
		case f.Anchor != nil && anchorAt[i] >= 0:
			out[i].AtNs = anchorAt[i] + f.Anchor.AfterMs*1e6
		case f.Anchor == nil && f.AtMs*1e6 < tr.Stats.SimNs:
			out[i].AtNs = f.AtMs * 1e6
		}
		if out[i].AtNs >= tr.Stats.SimNs && !out[i].Recorded {
			out[i].AtNs = -1 // due after the run ended
		}
	}
	return out
}

// anchorDetail starts the Detail of the event the sim records when an
// anchor resolves (trace.FaultApplied of kind "anchor").
const anchorDetail = "anchor: "

// IsAnchorEvent reports whether e is the event of an anchor resolving:
// it carries its fault's duration, but the fault starts at the anchor
// plus its offset (its own event), not at e.
func IsAnchorEvent(e trace.Event) bool {
	return e.Kind == trace.EvFault && strings.HasPrefix(e.Detail, anchorDetail)
}

// DescribeFaults renders each fault of f's schedule as it happened in
// f's trace, in schedule order: its kind, target, start time, duration
// and amount, and for an anchored fault what it was anchored to:
// "gc-pause c1 at t=36.1 s for 41000 ms, 100 ms after c1 acquired".
func DescribeFaults(f *File) []string {
	faults := f.Scenario.Faults
	fired := Firings(faults, f.Trace)
	var endNs int64
	if f.Trace != nil {
		endNs = f.Trace.Stats.SimNs
	}
	out := make([]string, len(faults))
	for i, flt := range faults {
		out[i] = describeFault(flt, fired[i], endNs)
	}
	return out
}

// describeFault renders one fault that fired as fired says in a run that
// ended at endNs.
func describeFault(f trace.Fault, fired Firing, endNs int64) string {
	s := f.Kind + " " + f.Target
	amount := ""
	switch spec, _ := trace.LookupKind(f.Kind); {
	case f.DurMs > 0:
		amount += " for " + strconv.FormatInt(f.DurMs, 10) + " ms"
	case f.Kind == trace.FaultClientCrash:
		amount += " for good (duration 0: it never restarts)"
	case spec.Shrink&trace.ShrinkDur != 0:
		amount += " for 0 ms (it ends as it starts)"
	}
	if f.Value != 0 {
		amount += " (value " + strconv.FormatInt(f.Value, 10) + ")"
	}
	var when string
	switch a := f.Anchor; {
	case a != nil && fired.AtNs < 0:
		return s + amount + " never started: it was due " + offsetPhrase(a.AfterMs) + anchorPhrase(*a) + ", which did not happen"
	case a != nil:
		when = ", " + offsetPhrase(a.AfterMs) + anchorPhrase(*a)
	case fired.AtNs < 0:
		return s + " due at " + trace.Tenths.At(f.AtMs*1e6) + amount + ": not applied, the run ended at " + trace.Tenths.At(endNs)
	}
	s += " at " + trace.Tenths.At(fired.AtNs) + amount + when
	if !fired.Recorded {
		s += " (no effect recorded: its target was already stopped by another fault)"
	}
	return s
}

// offsetPhrase leads an anchor's phrase: "100 ms after " or "as ".
func offsetPhrase(ms int64) string {
	if ms == 0 {
		return "as "
	}
	return strconv.FormatInt(ms, 10) + " ms after "
}

// anchorPhrase says what an anchor waits for, in words: "c1 acquired",
// "c1 acquired for the 2nd time", "c2 called release", "c1's 3rd renew
// returned error".
func anchorPhrase(a trace.Anchor) string {
	nth := ""
	if a.Nth > 1 {
		nth = " for the " + ordinal(a.Nth) + " time"
	}
	switch {
	case a.Phase == trace.PhaseInvoke:
		return a.Party + " called " + a.Op + nth
	case a.Op == model.OpAcquire && a.Result == model.ResOK:
		return a.Party + " acquired" + nth
	}
	s := a.Party + "'s "
	if a.Nth > 1 {
		s += ordinal(a.Nth) + " "
	}
	s += a.Op + " returned"
	if a.Result != "" {
		s += " " + a.Result
	}
	return s
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}
