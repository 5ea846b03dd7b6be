package model

import (
	"context"

	"github.com/anishathalye/porcupine"
)

// powerset is porcupine's NondeterministicModel.ToModel (v1.3.1): a state
// is the set of the model's possible states, as a []any in first-seen
// order. Its Step gives the same sets in the same order with fewer
// allocations: from one state whose successors are distinct (the common
// case), the successors the model returned are the next set as they are,
// where ToModel copies them twice; so are distinct initial states. Equal
// and the descriptions are ToModel's.
func powerset(nm *porcupine.NondeterministicModel) porcupine.Model {
	m := nm.ToModel()
	step := func(state, input, output any) (bool, any) {
		states := state.([]any)
		if len(states) == 1 {
			next := deduped(nm.Step(states[0], input, output), nm.Equal)
			return len(next) > 0, next
		}
		var all []any
		for _, s := range states {
			all = append(all, nm.Step(s, input, output)...)
		}
		next := merged(all, nm.Equal)
		return len(next) > 0, next
	}
	m.Init = func() any { return deduped(nm.Init(), nm.Equal) }
	m.Step = step
	m.StepContext = func(ctx context.Context, state, input, output any) (bool, any) {
		if ctx.Err() != nil {
			return false, nil
		}
		return step(state, input, output)
	}
	return m
}

// constInit makes m's initial state once: for a model whose Init is a
// constant (states are never changed in place, so one value serves every
// search).
func constInit(m porcupine.Model) porcupine.Model {
	init := m.Init()
	m.Init = func() any { return init }
	return m
}

// deduped is states without repeats: states itself when it has none.
func deduped(states []any, equal func(a, b any) bool) []any {
	if distinct(states, equal) {
		return states
	}
	return merged(states, equal)
}

// distinct reports whether no two of states are equal.
func distinct(states []any, equal func(a, b any) bool) bool {
	for i := 1; i < len(states); i++ {
		for _, s := range states[:i] {
			if equal(states[i], s) {
				return false
			}
		}
	}
	return true
}

// merged is states without repeats, each kept at its first place; nil
// when states is empty.
func merged(states []any, equal func(a, b any) bool) []any {
	var out []any
	for _, s := range states {
		dup := false
		for _, u := range out {
			if equal(s, u) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, s)
		}
	}
	return out
}
