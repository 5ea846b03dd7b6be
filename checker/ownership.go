package checker

import (
	"fmt"
	"sort"
	"strings"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// ownership reports every lease a client renewed or released without
// holding it: foreign renewals and foreign releases, whether or not an
// overlap followed (an overlap is reported under mutual exclusion too,
// with its own cause).
func ownership(t *truth, ix holdIndex) []Violation {
	return append(foreignRenewals(t, ix), foreignReleases(t)...)
}

// foreignReleases reports every key a client deleted, or overwrote, while
// another client owned it: a plain DEL after its own lease had expired, a
// non-atomic compare-then-delete, a retried release whose first attempt
// had already run. A takeover that a client clock running ahead made look
// legal to the taker is the clock's doing, not a release.
func foreignReleases(t *truth) []Violation {
	var out []Violation
	for _, g := range t.grants {
		// A thread of the owner's process (its keep-alive, its watchdog)
		// acts for the owner, as a renewal does.
		if g.End < 0 || g.EndBy == "" || model.ProcessOf(g.EndBy) == model.ProcessOf(g.Owner) {
			continue
		}
		var end ending
		switch g.EndKind {
		case endDeleted:
			end = t.deletion(g, t.tr.Events[g.End], ending{nodes: []string{t.tr.Events[g.End].Party}})
		case endTaken:
			end = t.takeover(g, t.tr.Events[g.End])
		default:
			continue
		}
		if end.cause != CauseForeignRelease && end.cause != CauseRetriedCommand {
			continue
		}
		e := t.tr.Events[g.End]
		out = append(out, Violation{
			Property: PropOwnership, Cause: end.cause, Key: g.Key, Clients: []string{g.Owner, g.EndBy},
			AtMs: trace.Ms(e.T), Nodes: end.nodes, Events: sortedUnique(append(end.events, g.Create, g.End)),
			Explanation: fmt.Sprintf("%s created %s on %s at %s; %s: it released a lock it did not hold.",
				g.Owner, g.Key, t.tr.Events[g.Create].Party, t.p.At(g.T), end.text(t.p)),
		})
	}
	return out
}

// foreignRenewals reports every client that extended a lock another
// client's process held: from ground truth (an EXPIRE-family command that
// hit a key created by another process), and from the histories (a renew
// that returned ok while only another process held the lock).
func foreignRenewals(t *truth, ix holdIndex) []Violation {
	type pair struct {
		renewer string
		g       *grant
	}
	var out []Violation
	seen := map[pair]int{}
	reported := map[[2]string]bool{}
	for _, f := range t.foreign {
		e := t.tr.Events[f.Event]
		p := pair{e.Client, f.G}
		if i, ok := seen[p]; ok {
			v := &out[i]
			v.UntilMs = trace.Ms(e.T)
			v.Events = append(v.Events, f.Event)
			continue
		}
		seen[p] = len(out)
		reported[[2]string{e.Client, f.G.Owner}] = true
		out = append(out, Violation{
			Property: PropOwnership, Cause: CauseForeignRenewal, Key: f.G.Key,
			Clients: []string{f.G.Owner, e.Client}, AtMs: trace.Ms(e.T), Nodes: []string{e.Party},
			Events: []int{f.G.Create, f.Event},
			Explanation: fmt.Sprintf("%s created %s on %s at %s; %s, another process, extended it with %s at %s: it renewed a lock it did not hold.",
				f.G.Owner, f.G.Key, t.tr.Events[f.G.Create].Party, t.p.At(f.G.T), e.Client, strings.Join(e.Args, " "), t.p.At(e.T)),
		})
	}
	for i := range out {
		if n := len(out[i].Events) - 1; n > 1 {
			more := "once more"
			if n > 2 {
				more = fmt.Sprintf("%d more times", n-1)
			}
			out[i].Explanation = strings.TrimSuffix(out[i].Explanation, ": it renewed a lock it did not hold.") +
				fmt.Sprintf(", then %s until %s: it renewed a lock it did not hold.", more, t.p.At(t.tr.Events[out[i].Events[n]].T))
		}
	}
	for _, op := range t.tr.Ops {
		if op.Kind != model.OpRenew || op.Result != model.ResOK || op.Open() {
			continue
		}
		if ownHold(t, ix, op) {
			continue
		}
		owner, ok := ix.holderAt(op.Key, op.Return)
		if !ok || model.ProcessOf(owner.Client) == op.Process || reported[[2]string{op.Client, owner.Client}] {
			continue
		}
		reported[[2]string{op.Client, owner.Client}] = true
		var evs []int
		for _, i := range t.clientEvents(op.Client, op.Call, op.Return) {
			if t.tr.Events[i].Key == op.Key {
				evs = append(evs, i)
			}
		}
		out = append(out, Violation{
			Property: PropOwnership, Cause: CauseForeignRenewal, Key: op.Key,
			Clients: []string{owner.Client, op.Client}, AtMs: trace.Ms(op.Return), Events: evs,
			Explanation: fmt.Sprintf("%s held %s since %s; %s renewed it at %s and the renewal returned ok, although its process held no lock on it.",
				owner.Client, op.Key, t.p.At(owner.Start), op.Client, t.p.At(op.Return)),
		})
	}
	return out
}

// ownHold reports whether a thread of op's process held op.Key while op
// ran.
func ownHold(t *truth, ix holdIndex, op trace.Op) bool {
	for _, c := range t.processClients(op.Process) {
		if ix.holds(c, op.Key, op.Return) || ix.holds(c, op.Key, op.Call) {
			return true
		}
	}
	return false
}

// holderAt returns the earliest-starting hold of key in force at time at.
func (ix holdIndex) holderAt(key string, at int64) (hold, bool) {
	idx, reach := ix.byKey.get(key), ix.reach[key]
	n := sort.Search(len(idx), func(i int) bool { return ix.hs[idx[i]].Start > at })
	found := -1
	for i := n - 1; i >= 0 && reach[i] > at; i-- {
		if ix.hs[idx[i]].End > at {
			found = idx[i]
		}
	}
	if found < 0 {
		return hold{}, false
	}
	return ix.hs[found], true
}
