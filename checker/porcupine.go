package checker

import (
	"sort"
	"time"

	"github.com/anishathalye/porcupine"
)

// checkHistory checks ops against m. A partition whose operations do not
// overlap in time and replay legally one after the other is linearizable
// as it stands; only the other partitions go to porcupine, within timeout.
func checkHistory(m porcupine.Model, ops []porcupine.Operation, timeout time.Duration) porcupine.CheckResult {
	parts := [][]porcupine.Operation{ops}
	if m.Partition != nil {
		parts = m.Partition(ops)
	}
	var hard []porcupine.Operation
	for _, part := range parts {
		if !sequentialOK(m, part) {
			hard = append(hard, part...)
		}
	}
	if len(hard) == 0 {
		return porcupine.Ok
	}
	return porcupine.CheckOperationsTimeout(m, hard, timeout)
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
