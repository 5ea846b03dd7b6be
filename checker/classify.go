package checker

import (
	"fmt"
	"iter"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// ending is how one grant a holder counted on vanished, classified. Its
// text is prefix + "on <node> at <time>" (when node is set) + suffix;
// endings on several nodes that differ only in node and time are told once.
type ending struct {
	cause, reason  string
	nodes          []string // where the key vanished (both masters of a split brain)
	prefix, suffix string
	node           string
	at             int64
	events         []int
	// minor: the holder still kept a quorum after this ending, so it
	// contributed but did not let the rival in (a lock of several masters).
	minor bool
}

func (e ending) text(p trace.Precision) string { return tell(p, []ending{e}) }

// tell joins endings, merging those that differ only in node and time.
func tell(p trace.Precision, ends []ending) string {
	var parts []string
	for i := 0; i < len(ends); {
		e := ends[i]
		j := i + 1
		for j < len(ends) && e.node != "" && ends[j].prefix == e.prefix && ends[j].suffix == e.suffix {
			j++
		}
		var wheres []string
		for k := i; k < j; {
			nodes := []string{ends[k].node}
			l := k + 1
			for ; l < j && ends[l].at == ends[k].at; l++ {
				nodes = append(nodes, ends[l].node)
			}
			wheres = append(wheres, fmt.Sprintf("on %s at %s", strings.Join(nodes, ", "), p.At(ends[k].at)))
			k = l
		}
		where := strings.Join(wheres, ", ")
		if e.node == "" {
			where = ""
		}
		parts = append(parts, e.prefix+where+e.suffix)
		i = j
	}
	return strings.Join(parts, "; ")
}

func rank(cause string) int { return slices.Index(causes, cause) }

// explainOverlap classifies why ov.Second acquired while ov.First held,
// from what happened to the keys both counted on.
func explainOverlap(t *truth, ov overlap, leaseMs int64) Violation {
	a, b := ov.First, ov.Second
	v := Violation{Property: PropMutex, Key: a.Key, Clients: []string{a.Client, b.Client}, AtMs: trace.Ms(b.Start)}
	if a.End != maxTime {
		v.UntilMs = trace.Ms(a.End)
	}
	held := a.Client + " acquired " + a.Key + " at " + t.p.At(a.Start)
	second := b.Client + " acquired it at " + t.p.At(b.Start) + " while " + stillHeld(t.p, a)
	ga, gb := t.holdGrants(a), t.holdGrants(b)
	if len(ga) == 0 || len(gb) == 0 {
		who := a.Client
		if len(ga) > 0 {
			who = b.Client
		}
		v.Cause = CauseLocalLockOnly
		v.Explanation = fmt.Sprintf("%s; %s; %s never created any key in Redis for it: the lock is local to each process.", held, second, who)
		return v
	}
	var ends []ending
	brk := t.quorumBreak(a, ga)
	for _, s := range sortedSites(ga) {
		x, y := ga.get(s), gb.get(s)
		if y == nil {
			continue
		}
		victim := a
		if y.T < x.T {
			x, y = y, x
			victim = b
		}
		var end ending
		if x.End < 0 || x.EndT > y.T {
			end = t.splitBrain(x, y)
		} else {
			end = t.ending(x, victim, leaseMs)
			end.minor = victim == a && x.EndT < brk
		}
		end.events = append(end.events, x.Create, y.Create)
		if x.End >= 0 {
			end.events = append(end.events, x.End)
		}
		ends = append(ends, end)
	}
	if len(ends) == 0 {
		v.Cause = CauseUnexplained
		v.Explanation = fmt.Sprintf("%s on %s; %s on %s, none of the same nodes: the two quorums do not intersect.",
			held, strings.Join(nodesOf(t, ga), ", "), second, strings.Join(nodesOf(t, gb), ", "))
		return v
	}
	sort.SliceStable(ends, func(i, j int) bool {
		if ends[i].minor != ends[j].minor {
			return !ends[i].minor
		}
		return rank(ends[i].cause) < rank(ends[j].cause)
	})
	v.Cause, v.Reason = ends[0].cause, ends[0].reason
	for _, e := range ends {
		v.Events = append(v.Events, e.events...)
		for _, n := range e.nodes {
			if !slices.Contains(v.Nodes, n) {
				v.Nodes = append(v.Nodes, n)
			}
		}
	}
	if len(ga) > 1 || len(gb) > 1 {
		held += " on " + strings.Join(nodesOf(t, ga), ", ")
		second = b.Client + " acquired it on " + strings.Join(nodesOf(t, gb), ", ") + " at " + t.p.At(b.Start) +
			" while " + stillHeld(t.p, a)
	}
	v.Explanation = held + "; " + tell(t.p, ends) + "; " + second
	if why, evs, ok := t.retaken(a, b); ok {
		v.Explanation += "; " + why
		v.Events = append(v.Events, evs...)
	}
	v.Explanation += "."
	v.Events = sortedUnique(v.Events)
	return v
}

// stillHeld says how far hold a reached, for an overlap: what its client
// believed, or, for a recorded history's hold with no release, what the
// history shows.
func stillHeld(p trace.Precision, a hold) string {
	refused := ""
	if a.Refused {
		refused = ", and its release at " + p.At(a.RefusedAt) + " failed"
	}
	switch {
	case a.Lapsed == lapsedSeen && a.Refused:
		return a.Client + " still believed it held the lock: it acted under it until " + p.At(a.End) + " (its last operation ended then)" + refused
	case a.Lapsed == lapsedSeen:
		return a.Client + " had not released it and still acted under it (its last operation ended at " + p.At(a.End) + ")"
	case a.Lapsed == lapsedLease:
		return a.Client + "'s lease could not have run out yet (not before " + p.At(a.End) + ")" + refused
	case a.Refused && a.End == maxTime:
		return a.Client + " still held it: its release at " + p.At(a.RefusedAt) + " failed"
	}
	if a.End != maxTime {
		return a.Client + " still believed it held the lock (until " + p.At(a.End) + ")"
	}
	return a.Client + " still believed it held the lock"
}

// quorumBreak is when holder h, counting on grants gs, kept fewer live
// keys than a quorum: the ending that broke its lock. On a lock of one
// site, or of every master (MultiLock), it is the start of time, so no
// ending is minor.
func (t *truth) quorumBreak(h hold, gs siteGrants) int64 {
	if t.allSites || len(t.sitesOf(h.Key)) < 2 {
		return math.MinInt64
	}
	var ends []int64
	for _, sg := range gs {
		ends = append(ends, sg.g.EndT)
	}
	q := t.quorum(h.Key)
	if len(ends) < q {
		return math.MinInt64
	}
	slices.Sort(ends)
	return ends[len(ends)-q]
}

// ending classifies how grant x, counted on by victim, vanished.
func (t *truth) ending(x *grant, victim hold, leaseMs int64) ending {
	e := t.tr.Events[x.End]
	out := ending{nodes: []string{e.Party}}
	owner := x.Owner
	switch x.EndKind {
	case endLost:
		out = t.lost(x, e)
		if e.T < victim.Start {
			out.suffix += fmt.Sprintf(", before %s's acquire returned OK at %s", victim.Client, t.p.At(victim.Start))
		}
		return out
	case endJump:
		j := t.tr.Events[x.Jump]
		out.cause = CauseClockJump
		out.events = []int{x.Jump}
		when := "at once"
		if e.T != j.T {
			when = "at " + t.p.At(e.T)
		}
		out.prefix = fmt.Sprintf("the clock of %s jumped forward by %s at %s and %s's key expired there %s, %s before its lease ran out",
			e.Party, t.p.Dur(j.DurNs), t.p.At(j.T), owner, when, t.p.Dur(x.Deadline-e.T))
		return out
	case endDrift:
		// A fast clock let the rival in only if the holder would have
		// been done by the time the lease ran out on time.
		if victim.End <= x.Deadline {
			return t.drifted(x, e, out)
		}
	case endTaken:
		return t.takeover(x, e)
	case endDeleted:
		return t.deletion(x, e, out)
	}
	return t.expiry(x, victim, e, leaseMs, out)
}

// drifted explains grant x's key expiring early on a node whose clock
// ran fast while it counted the key's TTL down.
func (t *truth) drifted(x *grant, e trace.Event, out ending) ending {
	out.cause = CauseClockDrift
	out.events = slices.Clone(x.Drift) // the caller appends to it
	var rates []string
	for _, d := range x.Drift {
		de := t.tr.Events[d]
		ppm, _ := de.DriftPPM()
		rates = append(rates, fmt.Sprintf("%.3g%% fast from %s", float64(ppm)/1e4, t.p.At(de.T)))
	}
	out.prefix = fmt.Sprintf("the clock of %s ran %s and %s's key expired there at %s, %s before its lease ran out",
		e.Party, strings.Join(rates, ", then "), x.Owner, t.p.At(e.T), t.p.Dur(x.Deadline-e.T))
	return out
}

// deletion classifies a grant whose key a DEL (or a script) removed.
func (t *truth) deletion(x *grant, e trace.Event, out ending) ending {
	owner := x.Owner
	if r := t.retryOf(x.End); r >= 0 {
		out.cause = CauseRetriedCommand
		out.events = []int{r}
		out.prefix = fmt.Sprintf("%s's %s timed out and was retried at %s; its first attempt had already run, and the retry deleted %s's key on %s at %s",
			x.EndBy, strings.Join(e.Args, " "), t.p.At(t.tr.Events[r].T), owner, e.Party, t.p.At(e.T))
		return out
	}
	if x.EndBy != owner {
		out.cause = CauseForeignRelease
		out.prefix = fmt.Sprintf("%s deleted that key on %s at %s (%s) although it was not the owner",
			x.EndBy, e.Party, t.p.At(e.T), strings.Join(e.Args, " "))
		return out
	}
	if t.late(x.End) {
		out.cause = CauseDelayedWrite
		out.prefix = fmt.Sprintf("%s's %s, an attempt it had given up on (timed out) and delayed in the network, reached %s at %s and deleted its own key while it still held the lock",
			owner, strings.Join(e.Args, " "), e.Party, t.p.At(e.T))
		return out
	}
	out.cause = CauseUnexplained
	out.prefix = fmt.Sprintf("%s deleted its own key on %s at %s (%s) while it still held the lock",
		owner, e.Party, t.p.At(e.T), strings.Join(e.Args, " "))
	return out
}

// expiry classifies a grant whose key expired on its node.
func (t *truth) expiry(x *grant, victim hold, e trace.Event, leaseMs int64, out ending) ending {
	owner := x.Owner
	expired := "its key expired "
	if victim.Client != owner {
		expired = owner + "'s key expired "
	}
	out.node, out.at = e.Party, e.T
	if x.TTLBy != x.Create {
		if r := t.tr.Events[x.TTLBy]; model.ProcessOf(r.Client) != model.ProcessOf(owner) {
			// The renewal itself is an ownership violation; the
			// overlap it let in is the lease running out early.
			out.cause, out.reason = CausePrematureExpiry, ReasonForeignTTL
			out.events = []int{x.TTLBy}
			out.prefix = fmt.Sprintf("%s, another client, had set the key's TTL with %s on %s at %s; %s",
				r.Client, strings.Join(r.Args, " "), r.Party, t.p.At(r.T), expired)
			return out
		}
	}
	if x.Op >= 0 && x.Op != victim.Acquire.ID {
		if op := t.tr.Ops[x.Op]; op.Kind == model.OpAcquire && unknownOutcome(op) {
			out.cause = CauseOrphanAcquire
			out.prefix = fmt.Sprintf("that key had been created on %s at %s by %s's earlier acquire (called at %s, %s), so its lease ran from then, not from %s; %s",
				e.Party, t.p.At(x.T), owner, t.p.At(op.Call), outcome(op), t.p.At(victim.Start), expired)
			return out
		}
	}
	if e.T < victim.Start {
		out.cause = CauseValidityNotChecked
		out.prefix = fmt.Sprintf("%s's acquire returned OK at %s, but %s", victim.Client, t.p.At(victim.Start), expired)
		out.suffix = " before that"
		if p := t.pauseCovering(victim.Process, victim.Acquire.Call, victim.Start); p >= 0 {
			pe := t.tr.Events[p]
			out.events = []int{p}
			out.suffix += fmt.Sprintf(" (%s was paused at %s for %s during the acquisition)", victim.Process, t.p.At(pe.T), t.p.Dur(pe.DurNs))
		}
		return out
	}
	out.cause = CausePrematureExpiry
	var why string
	out.reason, why, out.events = t.expiryReason(x, victim, e, leaseMs)
	out.prefix = expired
	if why != "" {
		out.prefix = why + "; " + expired
	}
	return out
}

// takeover classifies a grant that another client's command overwrote
// (GETSET, SET without NX): a takeover that a client clock running ahead
// made look legal to the taker, or a plain foreign release.
func (t *truth) takeover(x *grant, e trace.Event) ending {
	out := ending{nodes: []string{e.Party}, cause: CauseForeignRelease}
	what := fmt.Sprintf("%s overwrote %s's key on %s at %s (%s)", x.EndBy, x.Owner, e.Party, t.p.At(e.T), strings.Join(e.Args, " "))
	out.prefix = what + " although it was not the owner"
	p := model.ProcessOf(x.EndBy)
	if j := t.lastOf(p, trace.EvClockJump, 0, e.T); j >= 0 && t.tr.Events[j].DurNs > 0 {
		je := t.tr.Events[j]
		out.cause, out.reason, out.events = CauseClockJump, ReasonClientClock, []int{j}
		out.prefix = fmt.Sprintf("the clock of %s jumped forward by %s at %s, so %s read %s's lock as expired: %s",
			p, t.p.Dur(je.DurNs), t.p.At(je.T), x.EndBy, x.Owner, what)
	}
	return out
}

// expiryReason says why a holder's key ran out while it still believed it
// held the lock.
func (t *truth) expiryReason(x *grant, victim hold, e trace.Event, leaseMs int64) (string, string, []int) {
	if t.history {
		// Each acquire of a recorded history names its key's own lease
		// (or none): the lease of the hold's grant, not the history's first.
		leaseMs = historyLeaseMs(&t.tr.Events[x.Create])
	}
	if p := t.pauseCovering(victim.Process, x.T, e.T); p >= 0 {
		pe := t.tr.Events[p]
		why := pe.Detail
		if why == "" || why == trace.FaultGCPause {
			why = "GC pause"
		}
		return ReasonPaused, fmt.Sprintf("%s paused at %s for %s (%s)", victim.Process, t.p.At(pe.T), t.p.Dur(pe.DurNs), why), []int{p}
	}
	if s := t.faultCovering(victim.Process, trace.FaultWatchdogStall, x.T, e.T); s >= 0 {
		se := t.tr.Events[s]
		return ReasonRenewalStalled, fmt.Sprintf("%s's renewal threads stalled at %s for %s (%s)",
			victim.Process, t.p.At(se.T), t.p.Dur(se.DurNs), trace.FaultWatchdogStall), []int{s}
	}
	if why, evs, ok := t.noWatchdog(victim, e.T); ok {
		if lease := leaseMs * 1e6; lease > 0 && victim.End != maxTime && victim.End-victim.Start > lease {
			why += fmt.Sprintf("; its critical section lasted %s, longer than the %s lease, and nothing renewed it",
				t.p.Dur(victim.End-victim.Start), t.p.Dur(lease))
			if f := t.faultCovering(victim.Process, trace.FaultSlowWork, victim.Start, victim.Start); f >= 0 {
				why += fmt.Sprintf(" (%s from %s)", t.tr.Events[f].Detail, t.p.At(t.tr.Events[f].T))
				evs = append(evs, f)
			}
		}
		return ReasonNoWatchdog, why, evs
	}
	if last, renews := t.renewals(x, victim, e.T); renews {
		text := fmt.Sprintf("%s's renewals stopped", victim.Process)
		var evs []int
		from := x.T
		if last >= 0 {
			le := t.tr.Events[last]
			from = le.T
			evs = append(evs, last)
			text += fmt.Sprintf(": the last one reached %s at %s", le.Party, t.p.At(le.T))
		}
		switch note := t.historyRenewNote(victim, x.Key, from, e.T); {
		case note != "" && last >= 0:
			text += ", then " + note
		case note != "":
			text += ": " + note
		case last < 0:
			text += ": none reached " + x.Node
		}
		var faults []string
		for _, f := range t.stalls(victim.Process, x.Node, from, e.T) {
			fe := t.tr.Events[f]
			evs = append(evs, f)
			faults = append(faults, describeFault(t.p, fe))
		}
		if len(faults) > 0 {
			text += ", then " + strings.Join(faults, ", ")
		}
		if n, why := t.renewalFailed(victim, x.Key, from, e.T); n >= 0 {
			text += ", because " + why
			evs = append(evs, n)
		}
		return ReasonRenewalStalled, text, evs
	}
	lease := leaseMs * 1e6
	if lease <= 0 && x.Deadline > 0 {
		lease = x.Deadline - x.T
	}
	var slow []int
	injected := ""
	if f := t.faultCovering(victim.Process, trace.FaultSlowWork, victim.Start, victim.Start); f >= 0 {
		slow, injected = []int{f}, fmt.Sprintf(" (%s from %s)", t.tr.Events[f].Detail, t.p.At(t.tr.Events[f].T))
	} else if d := t.delayFrom(victim.Process, victim.Start, victim.End); d >= 0 {
		de := t.tr.Events[d]
		slow, injected = []int{d}, fmt.Sprintf(" (a delay fault on %s from %s to %s held its messages back: a request sent inside the lease was delayed in the network past it)",
			de.Party, t.p.At(de.T), t.p.At(de.T+de.DurNs))
	}
	switch {
	case victim.End == maxTime:
		return ReasonSlowWork, "its critical section was still running when the lease ran out" + injected, slow
	case lease > 0 && victim.End-victim.Start > lease:
		return ReasonSlowWork, fmt.Sprintf("its critical section lasted %s, longer than the %s lease%s",
			t.p.Dur(victim.End-victim.Start), t.p.Dur(lease), injected), slow
	}
	return ReasonNoProgress, "", nil
}

// pauseCovering returns the pause of process that covers to, or else the
// longest pause within [from, to] lasting at least half of it; -1 if none.
func (t *truth) pauseCovering(process string, from, to int64) int {
	return t.covering(t.pausesUntil(to), process, from, to, nil)
}

// pausesUntil is the pause events at or before to, in trace order.
func (t *truth) pausesUntil(to int64) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range t.tr.Events {
			if e := &t.tr.Events[i]; e.T > to {
				return
			} else if e.Kind == trace.EvPause && !yield(i) {
				return
			}
		}
	}
}

// faultCovering is pauseCovering for an injected fault of kind (the event
// the fault table says it records).
func (t *truth) faultCovering(process, kind string, from, to int64) int {
	return t.covering(slices.Values(t.partyEvents(process, 0, to)), process, from, to, func(e trace.Event) bool {
		return trace.CitesFault(e, kind)
	})
}

// covering picks among the events idx (in trace order, none after to)
// those of process that match (any, when match is nil).
func (t *truth) covering(idx iter.Seq[int], process string, from, to int64, match func(trace.Event) bool) int {
	best := -1
	for i := range idx {
		p := t.tr.Events[i]
		if p.Party != process || match != nil && !match(p) || p.T+p.DurNs < from {
			continue
		}
		if p.T+p.DurNs >= to {
			return i
		}
		if 2*p.DurNs >= to-from && (best < 0 || p.DurNs > t.tr.Events[best].DurNs) {
			best = i
		}
	}
	return best
}

// renewals reports whether the holder's process renewed (or tried to) the
// key before it expired, and its last successful renewal (-1 if none).
func (t *truth) renewals(x *grant, victim hold, until int64) (int, bool) {
	last := -1
	if n := len(x.Renewals); n > 0 {
		last = x.Renewals[n-1]
	}
	tried := last >= 0
	for _, c := range t.processClients(victim.Process) {
		for _, id := range t.opsBy.get(c) {
			op := t.tr.Ops[id]
			if op.Kind == model.OpRenew && op.Key == x.Key && op.Call >= x.T && op.Call <= until {
				tried = true
			}
		}
	}
	return last, tried
}

// historyRenewNote says, for a recorded history, what became of the
// first renew of key by victim's process invoked in [from, until] that
// did not renew its key in time: it failed (the key was gone), it
// returned ok only after until, or its outcome is unknown. "" if none,
// or for a simulated trace, whose renewals reach the server as events.
func (t *truth) historyRenewNote(victim hold, key string, from, until int64) string {
	if !t.history {
		return ""
	}
	for _, c := range t.processClients(victim.Process) {
		for _, id := range t.opsBy.get(c) {
			op := &t.tr.Ops[id]
			if op.Kind != model.OpRenew || op.Key != key || op.Call < from || op.Call > until {
				continue
			}
			switch {
			case op.Open() || op.Result == model.ResError:
				return fmt.Sprintf("the renew at %s has no known outcome", t.p.At(op.Call))
			case op.Result == model.ResOK && op.Return > until:
				return fmt.Sprintf("the renew at %s returned ok only at %s, after the key had expired", t.p.At(op.Call), t.p.At(op.Return))
			case op.Result != model.ResOK:
				return fmt.Sprintf("the renew at %s failed (at %s): the key was gone", t.p.At(op.Call), t.p.At(op.Return))
			}
		}
	}
	return ""
}

// processClients lists the clients (threads) of a process.
func (t *truth) processClients(process string) []string {
	var out []string
	for c := range t.opsBy.all() {
		if model.ProcessOf(c) == process {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// stalls lists what kept a process's renewals from the node in
// [from, to]: timeouts, retries, drops, and partitions that cut the
// process from the node.
func (t *truth) stalls(process, node string, from, to int64) []int {
	var out []int
	for _, i := range t.partyEvents(process, from, to) {
		switch t.tr.Events[i].Kind {
		case trace.EvTimeout, trace.EvRetry, trace.EvDrop:
			out = append(out, i)
		}
	}
	for _, i := range t.partitions {
		e := t.tr.Events[i]
		if e.T <= to && e.T+e.DurNs >= from && (e.Cuts(process, node) || e.Cuts(node, process)) {
			out = append(out, i)
		}
	}
	sort.Ints(out)
	if len(out) > 4 {
		out = append(out[:2:2], out[len(out)-2:]...)
	}
	return out
}

// lost classifies a key that vanished without a command or an expiry.
func (t *truth) lost(x *grant, e trace.Event) ending {
	out := ending{nodes: []string{e.Party}}
	owner := x.Owner
	switch e.Kind {
	case trace.EvNodeStart:
		out.cause = CauseRestart
		out.prefix = fmt.Sprintf("%s restarted at %s without persisting %s's key", e.Party, t.p.At(e.T), owner)
		if c := t.lastOf(e.Party, trace.EvNodeCrash, x.T, e.T); c >= 0 {
			out.events = append(out.events, c)
			out.prefix = fmt.Sprintf("%s crashed at %s and restarted at %s without persisting %s's key",
				e.Party, t.p.At(t.tr.Events[c].T), t.p.At(e.T), owner)
		}
	case trace.EvDemote:
		out.cause = CauseLostAfterFailover
		out.prefix = fmt.Sprintf("%s rejoined as a replica at %s and dropped %s's key, written while another node was master", e.Party, t.p.At(e.T), owner)
	case trace.EvReplicate:
		out.cause = CauseRestart
		out.prefix = fmt.Sprintf("%s lost %s's key at %s in a full resync (%s)", e.Party, owner, t.p.At(e.T), e.Detail)
	default:
		out.cause = CauseLostAfterFailover
		out.prefix = fmt.Sprintf("%s was promoted to master at %s without %s's key, which had not replicated to it", e.Party, t.p.At(e.T), owner)
		var after []string
		for _, kind := range []string{trace.EvNodeCrash, trace.EvMasterDown} {
			for _, party := range t.nodeParties() {
				if c := t.lastOf(party, kind, x.T, e.T); c >= 0 {
					out.events = append(out.events, c)
					ce := t.tr.Events[c]
					if kind == trace.EvNodeCrash {
						after = append(after, fmt.Sprintf("%s crashed at %s", ce.Party, t.p.At(ce.T)))
					} else {
						after = append(after, fmt.Sprintf("%s declared the master down at %s", ce.Party, t.p.At(ce.T)))
					}
				}
			}
		}
		if len(after) > 0 {
			out.prefix += ", after " + strings.Join(after, " and ")
		}
	}
	return out
}

// splitBrain explains two grants of one key alive at once on one site.
func (t *truth) splitBrain(x, y *grant) ending {
	out := ending{cause: CauseUnexplained, nodes: []string{x.Node, y.Node},
		prefix: fmt.Sprintf("%s's key on %s was still there when %s's key was created on %s at %s", x.Owner, x.Node, y.Owner, y.Node, t.p.At(y.T))}
	if !t.replicated && x.Node == y.Node {
		// One node held both: it granted the key while the first grant
		// could neither have expired nor been released (a recorded
		// history's double grant).
		out.cause = CauseDoubleGrant
		out.nodes = []string{x.Node}
		out.prefix = fmt.Sprintf("%s granted the key to %s at %s while %s's key there could not have expired or been released: two acquires granted while the first was held",
			y.Node, y.Owner, t.p.At(y.T), x.Owner)
		return out
	}
	if t.replicated {
		out.cause = CauseLostAfterFailover
		out.suffix = ": two masters at once after a failover (split brain)"
		for _, p := range t.promotes {
			if t.tr.Events[p].T <= y.T {
				out.events = []int{p}
			}
		}
		if len(out.events) > 0 {
			pe := t.tr.Events[out.events[0]]
			out.suffix = fmt.Sprintf(": two masters at once after %s was promoted at %s (split brain)", pe.Party, t.p.At(pe.T))
		}
	}
	return out
}

// lastOf returns party's last event of kind in [from, to], -1 if none.
func (t *truth) lastOf(party, kind string, from, to int64) int {
	ev := t.partyEvents(party, from, to)
	for i := len(ev) - 1; i >= 0; i-- {
		if t.tr.Events[ev[i]].Kind == kind {
			return ev[i]
		}
	}
	return -1
}

// nodeParties lists the parties that ran Redis commands, sorted.
func (t *truth) nodeParties() []string {
	var out []string
	for p, idx := range t.parties().all() {
		for _, i := range idx {
			if k := t.tr.Events[i].Kind; k == trace.EvCommand || k == trace.EvNodeCrash || k == trace.EvMasterDown {
				out = append(out, p)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

func sortedSites(gs siteGrants) []string {
	out := make([]string, 0, len(gs))
	for _, sg := range gs {
		out = append(out, sg.site)
	}
	sort.Strings(out)
	return out
}

func nodesOf(t *truth, gs siteGrants) []string {
	var out []string
	for _, s := range sortedSites(gs) {
		out = append(out, t.tr.Events[gs.get(s).Create].Party)
	}
	return out
}

func sortedUnique(xs []int) []int {
	slices.Sort(xs)
	return slices.Compact(xs)
}

func outcome(op trace.Op) string {
	if op.Open() {
		return "it never returned"
	}
	return "it returned " + op.Result
}

func describeFault(p trace.Precision, e trace.Event) string {
	switch e.Kind {
	case trace.EvTimeout:
		return fmt.Sprintf("a timeout at %s (%s)", p.At(e.T), e.Detail)
	case trace.EvRetry:
		return fmt.Sprintf("a retry at %s (%s)", p.At(e.T), e.Detail)
	case trace.EvDrop:
		return fmt.Sprintf("a lost message at %s (%s)", p.At(e.T), e.Detail)
	case trace.EvPartition:
		return fmt.Sprintf("a %s of %s at %s for %s", e.Detail, e.Party, p.At(e.T), p.Dur(e.DurNs))
	}
	return fmt.Sprintf("%s at %s", e.Kind, p.At(e.T))
}

// delayFrom returns the first delay fault on a link out of process that
// started within [from, to], or -1: a request that sat in the network
// made the critical section outlast the lease.
func (t *truth) delayFrom(process string, from, to int64) int {
	for _, i := range t.partitions {
		e := t.tr.Events[i]
		if e.T > to {
			break
		}
		a, b, both := e.Link()
		if e.Detail == trace.FaultDelay && e.T >= from && (a == process || both && b == process) {
			return i
		}
	}
	return -1
}
