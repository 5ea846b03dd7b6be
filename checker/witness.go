package checker

import (
	"cmp"
	"slices"

	"github.com/anishathalye/porcupine"

	"github.com/locksim/locksim/model"
)

// witnessOK looks for a linearization of part without a search: each
// operation takes effect at one instant of its own interval, its call or
// its return, and the model accepts the operations in the order of those
// instants. Such an order respects real time (an operation that returned
// before another was called comes first), so a model that accepts it
// proves part linearizable; when no candidate is accepted the search
// decides, and a violation is always the search's verdict.
//
// The first candidate fits locks whose holds do not overlap while many
// clients wait: a release reaches the server after it is sent and a
// waiting acquire succeeds just before it returns, so releases take
// effect at their call and everything else at its return.
func witnessOK(r *model.Replayer, part []porcupine.Operation) bool {
	order := make([]int, len(part))
	for _, at := range []func(porcupine.Operation) int64{releaseAtCall, atReturn, atCall} {
		if acceptsInOrder(r, part, at, order) {
			return true
		}
	}
	return false
}

func releaseAtCall(op porcupine.Operation) int64 {
	if in, ok := model.AsLockInput(op.Input); ok && !in.Acquire && !in.Renew && !in.Crash {
		return op.Call
	}
	return op.Return
}

func atReturn(op porcupine.Operation) int64 { return op.Return }
func atCall(op porcupine.Operation) int64   { return op.Call }

// acceptsInOrder steps the model through part ordered by at (ties in
// history order), writing the order into order, and reports whether
// every step is legal.
func acceptsInOrder(r *model.Replayer, part []porcupine.Operation, at func(porcupine.Operation) int64, order []int) bool {
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(at(part[a]), at(part[b])) })
	return r.Accepts(part, order)
}
