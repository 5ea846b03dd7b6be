package checker

import (
	"sort"

	"github.com/anishathalye/porcupine"
)

// DefaultBudget is the search steps one history check may take: about a
// second of one core, far above what the catalog's histories need.
const DefaultBudget = 20_000_000

// checkHistory checks ops against m. A partition whose operations do not
// overlap in time and replay legally one after the other is linearizable
// as it stands; the others are searched, in order, within budget steps in
// all. The result depends on the history alone, never on the machine.
func checkHistory(m porcupine.Model, ops []porcupine.Operation, budget int) porcupine.CheckResult {
	parts := [][]porcupine.Operation{ops}
	if m.Partition != nil {
		parts = m.Partition(ops)
	}
	left := budget
	out := porcupine.Ok
	for _, part := range parts {
		if sequentialOK(m, part) {
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

// sequentialOK reports a partition of operations that follow one another
// in time and that the model accepts in that order.
func sequentialOK(m porcupine.Model, part []porcupine.Operation) bool {
	if !sort.SliceIsSorted(part, func(i, j int) bool { return part[i].Call < part[j].Call }) {
		part = append([]porcupine.Operation(nil), part...)
		sort.SliceStable(part, func(i, j int) bool { return part[i].Call < part[j].Call })
	}
	state := m.Init()
	for i, op := range part {
		if i > 0 && part[i-1].Return >= op.Call {
			return false
		}
		var ok bool
		if ok, state = m.Step(state, op.Input, op.Output); !ok {
			return false
		}
	}
	return true
}
