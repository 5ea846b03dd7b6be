package checker

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/anishathalye/porcupine"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// beliefs is the hold that counted on each grant, by its place in
// truth.grants; nil for a grant no hold counted on.
type beliefs []*hold

// of is the hold that counted on g.
func (b beliefs) of(g *grant) (*hold, bool) {
	h := b[g.idx]
	return h, h != nil
}

// leaseHistory is the deployment view: every grant a client counted on,
// how it ended, and renewals by other processes, as one ordered sequence
// of instantaneous events. A grant lost early (failover, clock jump,
// restart) stays owed until its lease would have run out or its holder
// stopped believing in it, whichever is first.
func leaseHistory(t *truth, believed beliefs) []porcupine.Operation {
	type item struct {
		t   int64
		seq int
		in  model.LeaseInput
	}
	items := make([]item, 0, 2*len(t.grants))
	ev := func(i int, k model.LeaseKind, g *grant, owner string) {
		items = append(items, item{t.tr.Events[i].T, 2*i + 1, model.LeaseInput{Kind: k, Site: g.Site, Key: g.Key, Owner: owner}})
	}
	for _, g := range t.grants {
		h, ok := believed.of(g)
		if !ok {
			continue
		}
		// The debt on a grant that outlived its holder's acquire starts when
		// the holder starts counting on it: a rival's grant that ended
		// before then (a split brain the acquire outlasted) took nothing.
		at := g.T
		if g.EndT > h.Start {
			at = max(g.T, h.Start)
		}
		items = append(items, item{at, 2*g.Create + 1, model.LeaseInput{Kind: model.LeaseGrant, Site: g.Site, Key: g.Key, Owner: g.Owner}})
		// The deployment owes no grant past its holder's belief: after a
		// split brain the holder's DEL reached the deposed master while the
		// promoted one kept a copy until its TTL or lost it later, or kept
		// it to the end of the run (a key nobody ended).
		if h.End < g.EndT {
			items = append(items, item{h.End, 2*g.Create + 2, model.LeaseInput{Kind: model.LeaseEnd, Site: g.Site, Key: g.Key, Owner: g.Owner}})
			continue
		}
		if g.End < 0 {
			continue
		}
		if !lostEarly(g) {
			ev(g.End, model.LeaseEnd, g, g.Owner)
			continue
		}
		owed := t.owed(g, *h, believed)
		if owed <= g.EndT {
			ev(g.End, model.LeaseEnd, g, g.Owner)
			continue
		}
		ev(g.End, model.LeaseLost, g, g.Owner)
		if owed < maxTime {
			items = append(items, item{owed, 2*g.Create + 2, model.LeaseInput{Kind: model.LeaseDeadline, Site: g.Site, Key: g.Key, Owner: g.Owner}})
		}
	}
	for _, f := range t.foreign {
		ev(f.Event, model.LeaseRenew, f.G, t.tr.Events[f.Event].Client)
	}
	slices.SortStableFunc(items, func(a, b item) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.seq, b.seq))
	})
	out := make([]porcupine.Operation, len(items))
	ins := make([]model.LeaseInput, len(items)) // one allocation, not one an operation
	for i, it := range items {
		ins[i] = it.in
		out[i] = porcupine.Operation{Input: &ins[i], Output: nil, Call: int64(2 * i), Return: int64(2*i + 1)}
	}
	return out
}

// lostEarly reports a grant that ended before its lease ran out without
// its owner's doing: lost, or expired early by its node's clock.
func lostEarly(g *grant) bool {
	return g.EndKind == endLost || g.EndKind == endJump || g.EndKind == endDrift
}

// leaseViolations explains grants the deployment made while an earlier,
// believed grant it had lost early was still owed, when no
// mutual-exclusion violation already covers the pair.
func leaseViolations(t *truth, believed beliefs, mv []Violation) []Violation {
	covered := map[[3]string]bool{}
	for _, v := range mv {
		if len(v.Clients) == 2 {
			covered[[3]string{v.Key, v.Clients[0], v.Clients[1]}] = true
		}
	}
	var out []Violation
	for _, x := range t.grants {
		h, ok := believed.of(x)
		if !ok || !lostEarly(x) {
			continue
		}
		owed := t.owed(x, *h, believed)
		for _, y := range t.grants {
			if y.Key != x.Key || y.Site != x.Site || y.T < x.EndT || y.T >= owed || y == x {
				continue
			}
			if _, ok := believed.of(y); !ok || covered[[3]string{x.Key, x.Owner, y.Owner}] {
				continue
			}
			covered[[3]string{x.Key, x.Owner, y.Owner}] = true
			end := t.ending(x, *h, 0)
			out = append(out, Violation{
				Property: PropMutex, Cause: end.cause, Key: x.Key, Clients: []string{x.Owner, y.Owner},
				AtMs: trace.Ms(y.T), Nodes: end.nodes,
				Events: sortedUnique(append(end.events, x.Create, x.End, y.Create)),
				Explanation: fmt.Sprintf("%s's key %s was created at %s; %s; the deployment granted it to %s at %s while it still owed %s its lease (until %s).",
					x.Owner, x.Key, t.p.At(x.T), end.text(t.p), y.Owner, t.p.At(y.T), x.Owner, t.p.At(owed)),
			})
			break
		}
	}
	return out
}

// owed is until when the deployment owed x's holder h the grant x, which
// it lost early: until its lease would have run out or h stopped
// believing in it, whichever is first. On a lock of several masters one
// master's grant is no hold, so a rival's grant there ends the debt on
// that site when the rival's hold formed only after it.
func (t *truth) owed(x *grant, h hold, believed beliefs) int64 {
	owed := h.End
	if x.Deadline > 0 && x.Deadline < owed {
		owed = x.Deadline
	}
	if len(t.sitesOf(x.Key)) < 2 || x.End < 0 {
		return owed
	}
	for _, y := range t.grants {
		if y.Key != x.Key || y.Site != x.Site || y == x || y.T < x.EndT || y.T >= owed {
			continue
		}
		if hy, ok := believed.of(y); ok && hy.Start >= owed {
			owed = y.T
		}
	}
	return owed
}
