package checker

import (
	"math"
	"sort"
	"strings"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// Coverage says which dangerous states a run reached, read from the
// trace's ground truth, whether or not a violation followed: it is what
// makes "no violation in N runs" mean something.
type Coverage struct {
	// LostWhileHeld: a holder still believed it held the lock after the
	// deployment had kept fewer of its keys than a quorum (one, on a
	// single site): expiry, a clock jump, a failover, a restart or
	// someone else's delete.
	LostWhileHeld bool `json:"lost_while_held"`
	// PromotionDuringHold: a replica was promoted while a client held
	// the lock.
	PromotionDuringHold bool `json:"promotion_during_hold"`
	// BareQuorum: a holder of a lock on several masters owned exactly a
	// majority of them at some moment of its hold.
	BareQuorum bool `json:"bare_quorum"`
	// RenewalAfterExpiry: a holder renewed after one of its keys had
	// expired or been lost.
	RenewalAfterExpiry bool `json:"renewal_after_expiry"`
	// ReleaseFoundOtherOwner: a release ran while another client's key
	// was live on the lock.
	ReleaseFoundOtherOwner bool `json:"release_found_other_owner"`
}

// coverage reads the states of Coverage from the truth and the holds.
func coverage(t *truth, hs []hold) Coverage {
	var c Coverage
	byKeySite := indexKeySites(t.grants)
	for _, h := range hs {
		gs := t.holdGrants(h)
		q := t.quorum(h.Key)
		atStart, atEnd := 0, 0
		var firstEnd int64 = maxTime
		for _, sg := range gs {
			if sg.g.EndT > h.Start {
				atStart++
			}
			if sg.g.EndT >= h.End {
				atEnd++
			}
			firstEnd = min(firstEnd, sg.g.EndT)
		}
		c.LostWhileHeld = c.LostWhileHeld || len(gs) > 0 && atEnd < q
		c.BareQuorum = c.BareQuorum || len(t.sitesOf(h.Key)) > 1 && atStart >= q && atEnd <= q
		for _, p := range t.promotes {
			if at := t.tr.Events[p].T; at > h.Start && at < h.End {
				c.PromotionDuringHold = true
			}
		}
		c.RenewalAfterExpiry = c.RenewalAfterExpiry || firstEnd < h.End && t.renewedAfter(h, firstEnd)
		if h.Release >= 0 {
			c.ReleaseFoundOtherOwner = c.ReleaseFoundOtherOwner || byKeySite.otherOwnerAt(h, gs)
		}
	}
	return c
}

// renewedAfter reports whether h's process renewed h's lock after at and
// before the hold ended: a renew operation, or an EXPIRE-family command
// on the key, whatever it answered.
func (t *truth) renewedAfter(h hold, at int64) bool {
	proc := model.ProcessOf(h.Client)
	for client, ids := range t.opsBy.all() {
		if model.ProcessOf(client) != proc {
			continue
		}
		for _, i := range ids {
			op := t.tr.Ops[i]
			if op.Kind == model.OpRenew && op.Key == h.Key && op.Call > at && op.Call < h.End {
				return true
			}
		}
	}
	for client, idx := range t.byClient.all() {
		if model.ProcessOf(client) != proc {
			continue
		}
		for _, i := range window(t.tr, idx, at+1, h.End-1) {
			if e := t.tr.Events[i]; e.Kind == trace.EvCommand && e.Key == h.Key && isExpireFamily(e) {
				return true
			}
		}
	}
	return false
}

func isExpireFamily(e trace.Event) bool {
	if len(e.Args) == 0 {
		return false
	}
	switch strings.ToUpper(e.Args[0]) {
	case "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT":
		return true
	}
	return false
}

// keySiteGrants lists the grants of each lock key at each site.
type keySiteGrants struct {
	grants []*grant
	idx    groups[siteKey]     // each key's grants at a site, in creation order (so by T)
	reach  map[siteKey][]int64 // along idx's lists: the latest EndT among the grants so far
}

func indexKeySites(grants []*grant) keySiteGrants {
	k := keySiteGrants{grants: grants, reach: map[siteKey][]int64{},
		idx: groupBy(len(grants), func(i int) (siteKey, bool) { return siteKey{grants[i].Site, grants[i].Key}, true })}
	for sk, idx := range k.idx.all() {
		reach := make([]int64, len(idx))
		r := int64(math.MinInt64)
		for n, i := range idx {
			r = max(r, grants[i].EndT)
			reach[n] = r
		}
		k.reach[sk] = reach
	}
	return k
}

// otherOwnerAt reports whether, when h's release was invoked, another
// client's key was live on a site where h had counted on its own. It
// walks back from the last grant made by then, and stops where no
// earlier grant outlived the release.
func (k keySiteGrants) otherOwnerAt(h hold, gs siteGrants) bool {
	for _, sg := range gs {
		sk := siteKey{sg.site, h.Key}
		idx, reach := k.idx.get(sk), k.reach[sk]
		n := sort.Search(len(idx), func(i int) bool { return k.grants[idx[i]].T > h.End })
		for i := n - 1; i >= 0 && reach[i] > h.End; i-- {
			if g := k.grants[idx[i]]; g.Owner != h.Client && g.EndT > h.End {
				return true
			}
		}
	}
	return false
}

// CoverageState is one state of Coverage by name, with what it means
// in a sentence for readers of reports.
type CoverageState struct {
	Name    string
	Reached bool
	Doc     string
}

// States lists the states in a fixed order, named as the CLI prints them.
func (c Coverage) States() []CoverageState {
	return []CoverageState{
		{"lost-while-held", c.LostWhileHeld, "a holder still believed it held the lock after Redis had lost or expired its key"},
		{"promotion-during-hold", c.PromotionDuringHold, "a replica was promoted while a client held the lock"},
		{"bare-quorum", c.BareQuorum, "a holder of a lock on several masters owned exactly a majority of them"},
		{"renewal-after-expiry", c.RenewalAfterExpiry, "a holder renewed after one of its keys had expired or been lost"},
		{"release-found-other-owner", c.ReleaseFoundOtherOwner, "a release ran while another client's key was live on the lock"},
	}
}
