package checker

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/anishathalye/porcupine"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// Users' own resources (locktest): operations recorded with kind
// "<resource>/<op>" are checked against the resource's model.Spec, given
// in Options.Specs. A trace re-checked where the Spec is not at hand (the
// locksim CLI reading a locktest trace) keeps the check's recorded result
// (Options.Recorded), or says it could not check.

// userResources lists the user resources named by tr's operations, in
// order of first use.
func userResources(tr *trace.Trace) []string {
	var out []string
	for _, op := range tr.Ops {
		if name, _, ok := model.SplitUserKind(op.Kind); ok && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// userHistory is resource's history: every operation on it, those of
// unknown outcome open until the end of time.
func userHistory(tr *trace.Trace, resource string) []porcupine.Operation {
	var out []porcupine.Operation
	ids := newClientIDs()
	for _, op := range tr.Ops {
		name, verb, ok := model.SplitUserKind(op.Kind)
		if !ok || name != resource {
			continue
		}
		unknown := unknownOutcome(op)
		in := model.Call{Key: op.Key, Op: verb, Arg: op.Value}
		out = ids.add(out, op, in, model.Outcome{Result: op.Result, Unknown: unknown}, unknown)
	}
	return out
}

// checkUserResources checks each user resource of the trace against its
// Spec, lending causes from the mutual-exclusion violations mv.
func (res *Result) checkUserResources(t *truth, opt Options, mv []Violation) {
	for _, name := range userResources(t.tr) {
		spec, ok := specNamed(opt.Specs, name)
		mname := model.Spec{Name: name}.ModelName()
		switch {
		case ok:
			ops := userHistory(t.tr, name)
			r := checkHistory(spec.Model(), ops, opt.Budget)
			res.record(PropDamage, mname, len(ops), r)
			if r == porcupine.Illegal {
				res.Violations = append(res.Violations, userViolation(t, spec, opt.Budget, mv))
			}
		case opt.Recorded != nil:
			res.keepRecorded(opt.Recorded, name, mname)
		default:
			res.Checked = append(res.Checked, Checked{Property: PropDamage, Model: mname,
				Operations: len(userHistory(t.tr, name)), Result: VerdictUnknown,
				Unknown: "no model.Spec of resource " + name + " here: the locktest that recorded it checks it"})
		}
	}
}

func specNamed(specs []model.Spec, name string) (model.Spec, bool) {
	for _, s := range specs {
		if s.Name == name {
			return s, true
		}
	}
	return model.Spec{}, false
}

// keepRecorded copies the recorded check of a resource whose Spec is not
// at hand, and the violations it found.
func (res *Result) keepRecorded(rec *Report, name, mname string) {
	for _, c := range rec.Checked {
		if c.Model == mname {
			res.Checked = append(res.Checked, c)
		}
	}
	for _, v := range rec.Violations {
		if v.Resource == name {
			v.Model = mname
			res.Violations = append(res.Violations, v)
		}
	}
}

// userViolation explains the first key of a user resource whose history
// no serial order explains: by two of its operations that ran at once
// (their clients' holds overlapped), or by a loss of the key on Redis.
func userViolation(t *truth, spec model.Spec, budget int, mv []Violation) Violation {
	v := Violation{Property: PropDamage, Cause: CauseUnexplained, Clients: []string{}, Resource: spec.Name,
		Model: spec.ModelName()}
	recs := illegalKey(t.tr, spec, budget)
	if len(recs) == 0 {
		v.Explanation = "no serial order of " + spec.Name + "'s operations gives the results they returned."
		return v
	}
	key := recs[0].Key
	v.Key = key
	if a, b, found := firstConcurrent(recs); found {
		end := max(ret(a), ret(b)) // both results are in
		v.Cause, v.Reason = causeFor(mv, a.Client, b.Client, end)
		v.Clients, v.AtMs = []string{a.Client, b.Client}, trace.Ms(min(end, maxTime))
		v.Explanation = fmt.Sprintf("%s and %s ran at once on %s, and no serial order of %s's operations on %s gives the results they returned.",
			describeUserOp(t.p, a), describeUserOp(t.p, b), key, spec.Name, key)
		return v
	}
	from, to := recs[0].Call, ret(recs[len(recs)-1])
	v.AtMs = trace.Ms(to)
	v.Explanation = fmt.Sprintf("no serial order of %s's operations on %s gives the results they returned, and none of them ran at once: the resource does not do what its Spec says.",
		spec.Name, key)
	if l := t.lossIn(key, from, to); l >= 0 {
		var what string
		v.Cause, what = lossCause(t.p, t.tr.Events[l])
		v.Events = []int{l}
		v.Explanation = fmt.Sprintf("no serial order of %s's operations on %s gives the results they returned: %s in between.", spec.Name, key, what)
	}
	return v
}

// illegalKey returns the operations on the first key of spec's resource
// whose history is not linearizable, by call time; nil if none is.
func illegalKey(tr *trace.Trace, spec model.Spec, budget int) []trace.Op {
	byKey := map[string][]trace.Op{}
	var keys []string
	for _, op := range tr.Ops {
		if name, _, ok := model.SplitUserKind(op.Kind); ok && name == spec.Name {
			if byKey[op.Key] == nil {
				keys = append(keys, op.Key)
			}
			byKey[op.Key] = append(byKey[op.Key], op)
		}
	}
	m := spec.Model()
	for _, k := range keys {
		recs := byKey[k]
		sub := &trace.Trace{Ops: recs}
		if checkHistory(m, userHistory(sub, spec.Name), budget) == porcupine.Illegal {
			slices.SortStableFunc(recs, func(x, y trace.Op) int { return cmp.Compare(x.Call, y.Call) })
			return recs
		}
	}
	return nil
}

// firstConcurrent finds the earliest pair of operations of different
// clients in recs (by call time) that overlapped in time.
func firstConcurrent(recs []trace.Op) (trace.Op, trace.Op, bool) {
	for j, b := range recs {
		for _, a := range recs[:j] {
			if a.Client != b.Client && ret(a) > b.Call {
				return a, b, true
			}
		}
	}
	return trace.Op{}, trace.Op{}, false
}

// describeUserOp renders a user resource operation: "c1's deposit(10) ->
// 10 (t=1.0 s to t=6.1 s)".
func describeUserOp(p trace.Precision, op trace.Op) string {
	_, verb, _ := model.SplitUserKind(op.Kind)
	res, end := op.Result, "no reply"
	if !op.Open() {
		end = "to " + p.At(op.Return)
	} else {
		res = "?"
	}
	return fmt.Sprintf("%s's %s(%s) -> %s (%s %s)", op.Client, verb, op.Value, res, p.At(op.Call), end)
}
