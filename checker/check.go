package checker

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// Options carries what the checker needs to know about the scenario.
type Options struct {
	LeaseMs      int64
	InitialStock int
	Timeout      time.Duration // per porcupine check; 0 = 10 s
}

// Result is a Report plus what the visualization needs.
type Result struct {
	Report
	lockModel porcupine.Model
	lockInfo  porcupine.LinearizationInfo
	lockOps   int
	trace     *sim.Trace
}

// Check checks every history in tr and explains what it finds.
func Check(tr *sim.Trace, opt Options) *Result {
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Second
	}
	res := &Result{trace: tr}
	res.Verdict = VerdictOK
	ids := clientIDs(tr)
	tl := timeline{tr: tr}

	lockOps := lockHistory(tr, ids)
	res.lockModel = model.Mutex()
	res.lockOps = len(lockOps)
	if len(lockOps) > 0 {
		r, info := porcupine.CheckOperationsVerbose(res.lockModel, lockOps, opt.Timeout)
		res.lockInfo = info
		res.record(PropMutex, "mutex", len(lockOps), r)
		if r == porcupine.Illegal {
			for _, ov := range overlaps(holds(tr)) {
				res.Violations = append(res.Violations, explainOverlap(tl, ov, opt.LeaseMs))
			}
			if !res.has(PropMutex) {
				res.Violations = append(res.Violations, Violation{Property: PropMutex, Cause: CauseUnexplained,
					Explanation: "porcupine found no linearization of the lock history, but no two holds overlap in time; see the linearization view."})
			}
		}
	}
	mutexViolations := append([]Violation(nil), res.Violations...)

	if ops := insertHistory(tr, ids); len(ops) > 0 {
		r := porcupine.CheckOperationsTimeout(model.UniqueSet(), ops, opt.Timeout)
		res.record(PropResource, "unique-set", len(ops), r)
		if r == porcupine.Illegal {
			res.Violations = append(res.Violations, duplicateInserts(tr, mutexViolations)...)
		}
	}
	if ops := buyHistory(tr, ids, opt.InitialStock); len(ops) > 0 {
		r := porcupine.CheckOperationsTimeout(model.StockCounterFrom(opt.InitialStock), ops, opt.Timeout)
		res.record(PropResource, "stock-counter", len(ops), r)
		if r == porcupine.Illegal {
			res.Violations = append(res.Violations, lostUpdates(tr, mutexViolations)...)
		}
	}
	res.Damage = damage(tr, opt.InitialStock)
	if res.Violations == nil {
		res.Violations = []Violation{}
	}
	return res
}

func (res *Result) record(prop, name string, n int, r porcupine.CheckResult) {
	out := VerdictOK
	switch r {
	case porcupine.Illegal:
		out = VerdictViolation
		res.Verdict = VerdictViolation
	case porcupine.Unknown:
		out = VerdictUnknown
		if res.Verdict == VerdictOK {
			res.Verdict = VerdictUnknown
		}
	}
	res.Checked = append(res.Checked, Checked{Property: prop, Model: name, Operations: n, Result: out})
}

func (res *Result) has(prop string) bool {
	for _, v := range res.Violations {
		if v.Property == prop {
			return true
		}
	}
	return false
}

// clientIDs numbers clients in order of first appearance.
func clientIDs(tr *sim.Trace) map[string]int {
	ids := map[string]int{}
	for _, op := range tr.Ops {
		if _, ok := ids[op.Client]; !ok {
			ids[op.Client] = len(ids)
		}
	}
	return ids
}

func ret(op sim.Op) int64 {
	if op.Open() {
		return math.MaxInt64
	}
	return op.Return
}

func unknown(op sim.Op) bool {
	return op.Open() || strings.HasPrefix(op.Result, model.ResError)
}

// lockHistory keeps successful acquires and the releases that end them;
// failed acquires cannot change the state and are left out.
func lockHistory(tr *sim.Trace, ids map[string]int) []porcupine.Operation {
	var out []porcupine.Operation
	holding := map[[2]string]bool{}
	for _, op := range tr.Ops {
		k := [2]string{op.Client, op.Key}
		switch op.Kind {
		case model.OpAcquire:
			if op.Result != model.ResOK || op.Open() {
				continue
			}
			holding[k] = true
			out = append(out, porcupine.Operation{ClientId: ids[op.Client],
				Input:  model.LockInput{Acquire: true, Key: op.Key, Owner: op.Client},
				Output: model.LockOutput{OK: true}, Call: op.Call, Return: op.Return})
		case model.OpRelease:
			if !holding[k] {
				continue
			}
			delete(holding, k)
			out = append(out, porcupine.Operation{ClientId: ids[op.Client],
				Input:  model.LockInput{Key: op.Key, Owner: op.Client},
				Output: model.LockOutput{OK: op.Result == model.ResOK, Unknown: unknown(op)},
				Call:   op.Call, Return: ret(op)})
		}
	}
	return out
}

func insertHistory(tr *sim.Trace, ids map[string]int) []porcupine.Operation {
	var out []porcupine.Operation
	for _, op := range tr.Ops {
		if op.Kind != model.OpInsert {
			continue
		}
		out = append(out, porcupine.Operation{ClientId: ids[op.Client], Input: model.InsertInput{Name: op.Key},
			Output: model.InsertOutput{Inserted: op.Result == model.ResInserted, Unknown: unknown(op)},
			Call:   op.Call, Return: ret(op)})
	}
	return out
}

// parseBuy reads "sold@N" / "soldout@N".
func parseBuy(result string) (sold bool, read int, ok bool) {
	kind, n, found := strings.Cut(result, "@")
	if !found {
		return false, 0, false
	}
	v, err := strconv.Atoi(n)
	if err != nil {
		return false, 0, false
	}
	return kind == "sold", v, kind == "sold" || kind == "soldout"
}

func buyHistory(tr *sim.Trace, ids map[string]int, initial int) []porcupine.Operation {
	var out []porcupine.Operation
	for _, op := range tr.Ops {
		if op.Kind != model.OpBuy {
			continue
		}
		sold, read, ok := parseBuy(op.Result)
		out = append(out, porcupine.Operation{ClientId: ids[op.Client], Input: model.BuyInput{Key: op.Key, Initial: initial},
			Output: model.BuyOutput{Read: read, Sold: sold, Unknown: !ok || unknown(op)},
			Call:   op.Call, Return: ret(op)})
	}
	return out
}

// causeFor finds the mutual-exclusion violation between the two clients
// closest before t and lends its cause to a resource violation.
func causeFor(mv []Violation, a, b string, t int64) (string, string) {
	best := -1
	for i, v := range mv {
		if len(v.Clients) == 2 && ((v.Clients[0] == a && v.Clients[1] == b) || (v.Clients[0] == b && v.Clients[1] == a)) &&
			v.AtMs <= sim.Ms(t) {
			best = i
		}
	}
	if best < 0 {
		return CauseUnexplained, ""
	}
	return mv[best].Cause, mv[best].Reason
}

func duplicateInserts(tr *sim.Trace, mv []Violation) []Violation {
	byName := map[string][]sim.Op{}
	var names []string
	for _, op := range tr.Ops {
		if op.Kind == model.OpInsert && op.Result == model.ResInserted {
			if len(byName[op.Key]) == 0 {
				names = append(names, op.Key)
			}
			byName[op.Key] = append(byName[op.Key], op)
		}
	}
	var out []Violation
	for _, name := range names {
		ops := byName[name]
		for _, second := range ops[1:] {
			first := ops[0]
			cause, reason := causeFor(mv, first.Client, second.Client, second.Return)
			out = append(out, Violation{
				Property: PropResource, Cause: cause, Reason: reason, Key: name,
				Clients: []string{first.Client, second.Client}, AtMs: sim.Ms(second.Return),
				Explanation: fmtInsert(first, second),
			})
		}
	}
	return out
}

func fmtInsert(first, second sim.Op) string {
	return "both " + first.Client + " (at " + fmtMs(first.Return) + ") and " + second.Client +
		" (at " + fmtMs(second.Return) + ") found " + first.Key + " absent under the lock and inserted it: a duplicate row."
}

func lostUpdates(tr *sim.Trace, mv []Violation) []Violation {
	byRead := map[int][]sim.Op{}
	var reads []int
	for _, op := range tr.Ops {
		if op.Kind != model.OpBuy {
			continue
		}
		if sold, read, ok := parseBuy(op.Result); ok && sold {
			if len(byRead[read]) == 0 {
				reads = append(reads, read)
			}
			byRead[read] = append(byRead[read], op)
		}
	}
	sort.Ints(reads)
	var out []Violation
	for _, r := range reads {
		ops := byRead[r]
		for _, second := range ops[1:] {
			first := ops[0]
			cause, reason := causeFor(mv, first.Client, second.Client, second.Return)
			out = append(out, Violation{
				Property: PropResource, Cause: cause, Reason: reason, Key: first.Key,
				Clients: []string{first.Client, second.Client}, AtMs: sim.Ms(second.Return),
				Explanation: first.Client + " and " + second.Client + " both read stock " + strconv.Itoa(r) +
					" and wrote " + strconv.Itoa(r-1) + ": one sale was a lost update.",
			})
		}
	}
	return out
}

// damage counts harm to the data from ground truth: rows the database
// actually stored, sales the clients completed.
func damage(tr *sim.Trace, initial int) Damage {
	var d Damage
	rows := map[string]int{}
	for _, e := range tr.Events {
		if e.Kind == sim.EvService && len(e.Args) == 2 && e.Args[0] == "INSERT" {
			rows[e.Args[1]]++
		}
	}
	for _, n := range rows {
		if n > 1 {
			d.DuplicateInserts += n - 1
		}
	}
	sold := 0
	distinct := map[int]bool{}
	for _, op := range tr.Ops {
		if op.Kind != model.OpBuy {
			continue
		}
		if s, read, ok := parseBuy(op.Result); ok && s {
			sold++
			distinct[read] = true
		}
	}
	d.LostUpdates = sold - len(distinct)
	if sold > initial && initial > 0 {
		d.OversoldUnits = sold - initial
	}
	return d
}
