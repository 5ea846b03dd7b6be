package explore

import (
	"fmt"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// judgement is what one run says about a lock.
type judgement struct {
	// Unsafe: the lock let two clients act as holders at once, or harm
	// to the data followed from it.
	Unsafe bool
	// DataLoss: the lock held, but the data store lost writes on its own
	// (the protected key went with a failed-over or restarted node, or a
	// write went to a deposed master), which no lock can prevent.
	DataLoss      bool
	Cause, Detail string
}

// judge decides whether one run's report shows the lock unsafe and names
// the cause. Any violation counts, and any harm to the data the checker
// counted from ground truth (duplicate rows, lost updates, oversold
// units, lost set elements), except a violation of the resource that the
// checker explains by the loss of the resource's own key on Redis: that
// is data loss, not the lock's failure. A write that merely landed after
// its writer's lease (StaleWritesAccepted) is a hazard, not harm, and
// counts only through the violations it causes. For a fencing lock two
// clients holding the lock at once is expected: the lock is advisory
// there and only the protected resource decides.
func judge(r checker.Report, tr *trace.Trace, fenced bool) judgement {
	var loss *checker.Violation
	for i, v := range r.Violations {
		if fenced && v.Property == checker.PropMutex {
			continue
		}
		if dataLoss(v, tr) {
			if loss == nil {
				loss = &r.Violations[i]
			}
			continue
		}
		return judgement{Unsafe: true, Cause: causeOf(v), Detail: v.Explanation}
	}
	if loss != nil {
		return judgement{DataLoss: true, Cause: causeOf(*loss), Detail: loss.Explanation}
	}
	d := r.Damage
	if harm := d.DuplicateInserts + d.LostUpdates + d.OversoldUnits + d.LostElements; harm > 0 {
		return judgement{Unsafe: true, Cause: "damage", Detail: fmt.Sprintf(
			"%d duplicate inserts, %d lost updates, %d oversold units, %d lost elements",
			d.DuplicateInserts, d.LostUpdates, d.OversoldUnits, d.LostElements)}
	}
	return judgement{}
}

// notJudged says why the run of report r was not judged, or "" if it
// was: a run is judged unless its verdict is unknown and ground truth
// showed no harm.
func (j judgement) notJudged(r checker.Report) string {
	if r.Verdict != checker.VerdictUnknown || j.Unsafe || j.DataLoss {
		return ""
	}
	return unknownWhy(r)
}

func causeOf(v checker.Violation) string {
	if v.Reason != "" {
		return v.Property + ": " + v.Cause + " (" + v.Reason + ")"
	}
	return v.Property + ": " + v.Cause
}

// dataLoss reports whether the checker explains a resource violation by
// its own key: lost on Redis (Change=lost), or written to a master that a
// promotion had deposed.
func dataLoss(v checker.Violation, tr *trace.Trace) bool {
	if v.Property != checker.PropDamage || tr == nil {
		return false
	}
	if v.Cause == checker.CauseUnexplained && v.Key == "" {
		// porcupine found the resource history illegal and the checker
		// named no key: a lost data key is the explanation at hand.
		return lostDataKey(tr)
	}
	own := func(key string) bool { return key == v.Key || strings.HasPrefix(key, v.Key+":") }
	promoted, wrote := false, false
	for _, i := range v.Events {
		if i < 0 || i >= len(tr.Events) {
			continue
		}
		e := tr.Events[i]
		if e.Change == trace.KeyLost && own(e.Key) {
			return true
		}
		promoted = promoted || e.Kind == trace.EvPromote
		wrote = wrote || e.Kind == trace.EvCommand && own(e.Key)
	}
	return promoted && wrote
}

// lostDataKey reports whether Redis lost a key that is not a lock key.
func lostDataKey(tr *trace.Trace) bool {
	locks := map[string]bool{}
	for _, op := range tr.Ops {
		if op.Kind == model.OpAcquire {
			locks[op.Key] = true
		}
	}
	for _, e := range tr.Events {
		if e.Change == trace.KeyLost && e.Key != "" && !locks[e.Key] && !locks[strings.SplitN(e.Key, ":", 2)[0]] {
			return true
		}
	}
	return false
}

// CauseProperty is the property of a Judgement's (or a cell's) Cause:
// "property: cause (reason)", or "damage" for harm counted without a
// violation.
func CauseProperty(cause string) string {
	p, _, _ := strings.Cut(cause, ": ")
	if p == "damage" {
		return checker.PropDamage
	}
	return p
}

// Broken lists the properties the exploration's runs broke, in the
// checker's order: those its causes name, and damage when its runs harmed
// the data. checker.FailOn decides from it whether the exploration fails.
func (s *Summary) Broken() []string {
	var out []string
	for _, p := range checker.Properties() {
		broke := p == checker.PropDamage && s.Damage.Sum.Total() > 0
		for _, c := range s.Causes {
			broke = broke || c.Property == p
		}
		if broke {
			out = append(out, p)
		}
	}
	return out
}
