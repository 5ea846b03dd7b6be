package checker

import (
	"cmp"
	"slices"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// Users' own data in Redis (locktest.Data): the run ends with the user's
// invariant's judgement recorded in the trace (model.DataFinalKind), so
// the checker reads the harm it found wherever the trace is checked (the
// locksim CLI included) and explains it as the built-in workloads'
// damage: by the first two of the data's operations that ran at once, and
// the cause of the overlap of their clients' holds.

// checkUserData counts the harm each user data's final judgement found
// and adds a damage violation for each harmed data.
func (res *Result) checkUserData(t *truth, mv []Violation) Damage {
	var d Damage
	final := map[string]trace.Op{} // the last judgement of each data
	var names []string
	for _, op := range t.tr.Ops {
		if name, fin, ok := model.SplitDataKind(op.Kind); ok && fin && !op.Open() {
			if _, seen := final[name]; !seen {
				names = append(names, name)
			}
			final[name] = op
		}
	}
	for _, name := range names {
		op := final[name]
		h, err := model.ParseHarm(op.Result)
		if err != nil {
			continue // a judgement that errored (the final read failed): nothing to count
		}
		d.LostUpdates += h.LostUpdates
		d.DuplicateInserts += h.DuplicateInserts
		d.OversoldUnits += h.OversoldUnits
		d.LostElements += h.LostElements
		if h.Total() == 0 {
			continue
		}
		res.Violations = append(res.Violations, dataViolation(t, name, op, h, mv))
	}
	return d
}

// dataViolation explains the harm h of data name, judged by op.
func dataViolation(t *truth, name string, op trace.Op, h model.Harm, mv []Violation) Violation {
	v := Violation{Property: PropDamage, Cause: CauseUnexplained, Clients: []string{}, Resource: name,
		Key: op.Key, AtMs: trace.Ms(op.Return), Model: "data:" + name, Explanation: h.Explanation}
	var recs []trace.Op
	for _, o := range t.tr.Ops {
		if n, fin, ok := model.SplitDataKind(o.Kind); ok && !fin && n == name {
			recs = append(recs, o)
		}
	}
	slices.SortStableFunc(recs, func(x, y trace.Op) int { return cmp.Compare(x.Call, y.Call) })
	if a, b, found := firstConcurrent(recs); found {
		end := max(ret(a), ret(b))
		v.Cause, v.Reason = causeFor(mv, a.Client, b.Client, end)
		v.Clients = []string{a.Client, b.Client}
		v.Explanation += "; " + describeDataOp(t.p, a) + " and " + describeDataOp(t.p, b) + " ran at once."
		return v
	}
	v.Explanation += "; no two of its operations ran at once."
	return v
}

// describeDataOp renders an operation on user data: "c1/t1's operation
// 0 -> sold@100 (t=0.1 s to t=5.2 s)".
func describeDataOp(p trace.Precision, op trace.Op) string {
	res, end := op.Result, "no reply"
	if !op.Open() {
		end = "to " + p.At(op.Return)
	} else {
		res = "?"
	}
	return op.Client + "'s operation " + op.Value + " -> " + res + " (" + p.At(op.Call) + " " + end + ")"
}
