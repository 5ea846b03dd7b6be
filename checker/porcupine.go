package checker

import (
	"cmp"
	"slices"

	"github.com/anishathalye/porcupine"

	"github.com/locksim/locksim/model"
)

// DefaultBudget is the search steps one history check may take, far above
// what the catalog's histories need. A search that spends it all takes
// 10 to 30 s of one core and up to 1 GB for its cache of visited states
// (the lock-set history of local-mutex under every fault, before lostAdds
// refuted it without a search: 21.5 s of CPU, 600 MB).
const DefaultBudget = 20_000_000

// checkHistory checks ops against m. A partition whose operations do not
// overlap in time and replay legally one after the other is linearizable
// as it stands, and so is one with a witness order (witnessOK); the others
// are searched, in order, within budget steps in all. The result depends on the history alone, never on the machine.
func checkHistory(m porcupine.Model, ops []porcupine.Operation, budget int) porcupine.CheckResult {
	parts := [][]porcupine.Operation{ops}
	if m.Partition != nil {
		parts = m.Partition(ops)
	}
	left := budget
	out := porcupine.Ok
	r := model.NewReplayer(m)
	for _, part := range parts {
		if provenWithoutSearch(r, part) {
			continue
		}
		switch linearizable(m, part, &left) {
		case searchIllegal:
			return porcupine.Illegal
		case searchExceeded:
			out = porcupine.Unknown
		}
	}
	return out
}

// provenWithoutSearch reports a partition the model accepts in an order
// that respects real time, found without a search: when no two operations
// overlap, every instant of their intervals gives the call order, so that
// order alone is tried; otherwise the witness orders are.
func provenWithoutSearch(r *model.Replayer, part []porcupine.Operation) bool {
	byCall := inCallOrder(part)
	if overlapping(byCall) {
		return witnessOK(r, part)
	}
	return r.Accepts(byCall, nil)
}

// inCallOrder is part sorted by call time (ties in history order), a copy
// only when part is not sorted already.
func inCallOrder(part []porcupine.Operation) []porcupine.Operation {
	byCall := func(a, b porcupine.Operation) int { return cmp.Compare(a.Call, b.Call) }
	if !slices.IsSortedFunc(part, byCall) {
		part = slices.Clone(part)
		slices.SortStableFunc(part, byCall)
	}
	return part
}

// overlapping reports two operations of byCall (sorted by call) whose
// intervals meet.
func overlapping(byCall []porcupine.Operation) bool {
	for i := 1; i < len(byCall); i++ {
		if byCall[i-1].Return >= byCall[i].Call {
			return true
		}
	}
	return false
}
