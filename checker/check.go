package checker

import (
	"fmt"
	"maps"
	"slices"

	"github.com/anishathalye/porcupine"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// Options carries what the checker needs to know about the scenario.
type Options struct {
	LeaseMs      int64
	InitialStock int
	// Budget is the search steps each history check may take; 0 means
	// DefaultBudget. A check that runs out yields unknown, naming it.
	Budget    int
	Reentrant bool // check locks as reentrant even if no client re-acquires
	// AllSites says a lock of independent masters holds only with every
	// master (MultiLock); otherwise a majority (Redlock). A single master
	// or a replicated deployment is one site either way.
	AllSites bool
	// Liveness adds the liveness checks: after the last fault healed, no
	// client waits through a free lock and no key outlives its holder,
	// each by more than two leases.
	Liveness bool
	// Faults is the scenario's fault schedule: a violation citing an
	// event a fault caused (trace.Event.Fault) names the fault's entry.
	Faults []trace.Fault
	// Specs are the models of users' own resources (locktest), by name.
	Specs []model.Spec
	// History says the trace is a history recorded outside locksim (locksim
	// check): it shows what clients did, not what they believed. A hold
	// the history shows no release of, on a lock with a lease, lasts only
	// as long as the history shows its holder acting (its operations) or
	// its lease could not have run out, whichever is later: a silent or
	// crashed holder's lock may expire and go to another client.
	History bool
	// Recorded is the report a trace file holds, when the trace is checked
	// again: a user resource whose Spec is not in Specs keeps its recorded
	// check and violations.
	Recorded *Report
	// Precision is how the explanations print times (Report.Precision).
	Precision trace.Precision
}

// The models without state of their own, shared by every check (LockSet
// numbers its elements as it goes: one per check).
var (
	mutexModel     = model.Mutex()
	reentrantModel = model.ReentrantMutex()
	leaseModel     = model.LeaseMutex()
	uniqueSetModel = model.UniqueSet()
	fencedModel    = model.FencedRegister()
)

// Result is a Report plus what the visualization needs.
type Result struct {
	Report
	Coverage  Coverage
	lockModel porcupine.Model
	lockOps   []porcupine.Operation
	budget    int
	trace     *trace.Trace
	holds     []hold
	lockKeys  []string
}

// Check checks every history in tr and explains what it finds. Violations
// found from the trace's timing and ground truth are definite; when a
// history check runs out of its step budget and nothing else was found,
// the verdict is unknown and the report holds the checks that did finish.
// The report is a function of tr and opt alone.
//
// A run its budget stopped early (tr.Stats.Budget) is unknown unless the
// part that ran already shows a violation, which is real. A run the
// horizon stopped, its clients still waiting after all that time, is
// checked for liveness too: what kept them waiting is the finding.
func Check(tr *trace.Trace, opt Options) *Result {
	res := check(tr, opt)
	if tr.Stats.AtHorizon() && !opt.Liveness && res.Verdict == VerdictOK {
		opt.Liveness = true
		if r := check(tr, opt); r.Verdict == VerdictViolation {
			res = r
		}
	}
	if tr.Stats.Budget != "" {
		res.Budget = "budget exceeded: " + tr.Stats.Budget
		if res.Verdict == VerdictOK {
			res.Verdict = VerdictUnknown
		}
	}
	return res
}

func check(tr *trace.Trace, opt Options) *Result {
	if opt.Budget <= 0 {
		opt.Budget = DefaultBudget
	}
	res := &Result{trace: tr, budget: opt.Budget}
	res.Precision = opt.Precision
	t := newTruth(tr, opt)
	hs := holds(t)
	res.holds, res.lockKeys = hs, t.lockKeys.Keys
	ix := indexHolds(hs)
	res.Coverage = coverage(t, hs)
	res.checkLock(t, hs, ix, opt)
	// The data's violations are explained by the overlaps that let two
	// writers in: the mutual-exclusion violations, not the ownership ones
	// (a foreign release is told with the overlap it caused).
	var mv []Violation
	for _, v := range res.Violations {
		if v.Property == PropMutex {
			mv = append(mv, v)
		}
	}
	res.checkResources(t, opt, mv)
	res.checkUserResources(t, opt, mv)
	res.Violations = append(res.Violations, tokenRegressionViolations(t)...)
	res.Violations = append(res.Violations, retriedWrites(t)...)
	if opt.Liveness && len(tr.Events) > 0 {
		res.Violations = append(res.Violations, liveness(t, ix, 2*opt.LeaseMs*1e6)...)
	}
	res.Damage = damage(t, ix, opt.InitialStock)
	res.Damage.Add(res.checkUserData(t, mv))
	for _, v := range res.Violations {
		if v.Cause == CauseFenceRegression && v.Model != ModelLockTokens { // a write accepted below the fence's token
			res.Damage.FenceRegressions++
		}
	}
	if res.Violations == nil {
		res.Violations = []Violation{}
	}
	citeFaults(tr, opt.Faults, res.Violations)
	rankByCausality(res.Violations)
	res.Verdict = VerdictOK
	switch {
	case len(res.Violations) > 0:
		res.Verdict = VerdictViolation
	case res.anyUnknown():
		res.Verdict = VerdictUnknown
	}
	return res
}

// checkLock checks the lock's own histories (the mutex over the holds and
// the lease mutex over the grants each holder believed in) and explains
// every overlap and foreign renewal.
func (res *Result) checkLock(t *truth, hs []hold, ix holdIndex, opt Options) {
	believed := make(beliefs, len(t.grants))
	reentrant := opt.Reentrant
	for i, h := range hs {
		reentrant = reentrant || h.Nested
		for _, sg := range t.holdGrants(h) {
			believed[sg.g.idx] = &hs[i]
		}
	}
	lockOps, st := lockHistory(t, hs)
	res.lockModel, res.lockOps = mutexModel, lockOps
	name := "mutex"
	if reentrant || st.reentered {
		res.lockModel, name = reentrantModel, "reentrant-mutex"
	}
	if len(lockOps) > 0 {
		res.record(PropMutex, name, len(lockOps), checkHistory(res.lockModel, lockOps, opt.Budget))
	}
	for _, ov := range overlaps(ix) {
		res.Violations = append(res.Violations, explainOverlap(t, ov, opt.LeaseMs))
	}
	res.Violations = append(res.Violations, ownership(t, ix)...)
	if ops := leaseHistory(t, believed); len(ops) > 0 {
		r := checkHistory(leaseModel, ops, opt.Budget)
		res.record(PropMutex, "lease-mutex", len(ops), r)
		if r == porcupine.Illegal {
			res.Violations = append(res.Violations, leaseViolations(t, believed, res.Violations)...)
		}
	}
	// The lease history holds every renewal: a foreign one alone makes it
	// illegal, and is explained under ownership.
	if res.illegal(PropMutex) && !res.has(PropMutex) && !res.has(PropOwnership) {
		const why = ", but no two holds overlap in time; see the linearization view"
		vs := unexplained(PropMutex, name, res.lockModel, lockOps, opt.Budget, why)
		if ops := leaseHistory(t, believed); len(vs) == 1 && vs[0].Key == "" && len(ops) > 0 {
			vs = unexplained(PropMutex, "lease-mutex", leaseModel, ops, opt.Budget, why)
		}
		res.Violations = append(res.Violations, vs...)
	}
}

// unexplained is the violation of a history ops that porcupine found no
// linearization of and nothing explained: one for each key whose own
// history has none, so a history checked whole reports what its groups
// of keys checked apart do; one without a key when no key's alone is
// illegal (the budget ran out on them).
func unexplained(prop, name string, m porcupine.Model, ops []porcupine.Operation, budget int, why string) []Violation {
	byKey := map[string][]porcupine.Operation{}
	for _, op := range ops {
		k := model.KeyOf(op.Input)
		byKey[k] = append(byKey[k], op)
	}
	var out []Violation
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		if k == "" || checkHistory(m, byKey[k], budget) != porcupine.Illegal {
			continue
		}
		out = append(out, Violation{Property: prop, Cause: CauseUnexplained, Key: k,
			Explanation: fmt.Sprintf("porcupine found no linearization of the %s history of %q%s.", name, k, why)})
	}
	if len(out) == 0 {
		out = []Violation{{Property: prop, Cause: CauseUnexplained,
			Explanation: "porcupine found no linearization of the " + name + " history" + why + "."}}
	}
	return out
}

// checkResources checks the built-in workloads' protected data, each
// illegal history explained from the lock's violations mv.
func (res *Result) checkResources(t *truth, opt Options, mv []Violation) {
	tr := res.trace
	for _, c := range []struct {
		name string
		ops  []porcupine.Operation
	}{
		{"unique-set", insertHistory(t)},
		{"stock-counter", buyHistory(tr, opt.InitialStock)},
		{"fenced-register", writeHistory(t)},
		{"lock-set", setHistory(tr)},
	} {
		if len(c.ops) == 0 {
			continue
		}
		r := porcupine.Illegal
		if !refutedWithoutSearch(c.name, tr) {
			r = checkHistory(resourceModel(c.name, opt), c.ops, opt.Budget)
		}
		res.record(PropDamage, c.name, len(c.ops), r)
		if r != porcupine.Illegal {
			continue
		}
		vs := explainResource(c.name, t, mv)
		if len(vs) == 0 {
			vs = unexplained(PropDamage, c.name, resourceModel(c.name, opt), c.ops, opt.Budget, "")
		}
		for i := range vs {
			vs[i].Model = c.name
		}
		res.Violations = append(res.Violations, vs...)
	}
}

// resourceModel is the model of the built-in resource name.
func resourceModel(name string, opt Options) porcupine.Model {
	switch name {
	case "unique-set":
		return uniqueSetModel
	case "stock-counter":
		return model.StockCounterFrom(opt.InitialStock)
	case "fenced-register":
		return fencedModel
	}
	return model.LockSet()
}

// refutedWithoutSearch reports a proof that resource name's history is
// illegal, found without a search.
func refutedWithoutSearch(name string, tr *trace.Trace) bool {
	return name == "lock-set" && len(lostAdds(tr)) > 0
}

// explainResource explains the illegal history of resource name from the
// lock's violations mv.
func explainResource(name string, t *truth, mv []Violation) []Violation {
	switch name {
	case "unique-set":
		return append(duplicateInserts(t, mv), lateInserts(t)...)
	case "stock-counter":
		if vs := lostUpdates(t, mv); len(vs) > 0 {
			return vs
		}
		return dataLosses(t, model.OpBuy)
	case "fenced-register":
		return append(staleAccepts(t, mv), refusedFreshViolations(t)...)
	}
	if vs := lostElements(t, mv); len(vs) > 0 {
		return vs
	}
	return dataLosses(t, model.OpAdd, model.OpRead)
}

func (res *Result) record(prop, name string, n int, r porcupine.CheckResult) {
	c := Checked{Property: prop, Model: name, Operations: n, Result: VerdictOK}
	switch r {
	case porcupine.Illegal:
		c.Result = VerdictViolation
	case porcupine.Unknown:
		c.Result = VerdictUnknown
		c.Unknown = fmt.Sprintf("budget exceeded: no answer within %d search steps (checker.Options.Budget)", res.budget)
	}
	if res.Checked == nil {
		res.Checked = make([]Checked, 0, 8) // one per property and resource checked: a few
	}
	res.Checked = append(res.Checked, c)
}

func (res *Result) has(prop string) bool {
	for _, v := range res.Violations {
		if v.Property == prop {
			return true
		}
	}
	return false
}

func (res *Result) illegal(prop string) bool {
	for _, c := range res.Checked {
		if c.Property == prop && c.Result == VerdictViolation {
			return true
		}
	}
	return false
}

func (res *Result) anyUnknown() bool {
	for _, c := range res.Checked {
		if c.Result == VerdictUnknown {
			return true
		}
	}
	return false
}
