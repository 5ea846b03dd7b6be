package model

import (
	"context"

	"github.com/anishathalye/porcupine"
)

// successors appends the states a model may reach from state by one
// operation to next: a NondeterministicModel's Step writing into a slice
// it is given.
type successors func(state, input, output any, next []any) []any

// stateSet is a state of a powerset model: the model's possible states,
// distinct, in first-seen order. Most sets hold one or two states, kept
// in the set itself, so a step allocates the set alone, and a pointer
// boxes into an interface without allocating.
type stateSet struct {
	states []any
	inline [2]any
	of     *nondeterministic // the model it is a state of (Replayer steps it)
}

// nondeterministic is what a powerset model steps states with.
type nondeterministic struct {
	step  successors
	equal func(a, b any) bool
}

func (nd *nondeterministic) newStateSet() *stateSet {
	s := &stateSet{of: nd}
	s.states = s.inline[:0]
	return s
}

// powerset is porcupine's NondeterministicModel.ToModel (v1.3.1) of nm
// with Step step: a state is the set of the model's possible states, a
// *stateSet, and a step gives the same sets in the same order as ToModel
// with fewer allocations. Equal and the descriptions are ToModel's.
func powerset(nm porcupine.NondeterministicModel, step successors) porcupine.Model {
	nm.Step = func(state, input, output any) []any { return step(state, input, output, nil) }
	m := nm.ToModel()
	describe := m.DescribeState
	nd := &nondeterministic{step, nm.Equal}
	stepSet := func(state, input, output any) (bool, any) {
		next := nd.newStateSet()
		for _, s := range state.(*stateSet).states {
			next.states = step(s, input, output, next.states)
		}
		next.states = dedupe(next.states, nm.Equal)
		return len(next.states) > 0, next
	}
	m.Init = func() any {
		s := nd.newStateSet()
		s.states = dedupe(append(s.states, nm.Init()...), nm.Equal)
		return s
	}
	m.Step = stepSet
	m.StepContext = func(ctx context.Context, state, input, output any) (bool, any) {
		if ctx.Err() != nil {
			return false, nil
		}
		return stepSet(state, input, output)
	}
	m.Equal = func(a, b any) bool { return sameSet(a.(*stateSet).states, b.(*stateSet).states, nm.Equal) }
	m.DescribeState = func(state any) string { return describe(state.(*stateSet).states) }
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

// dedupe drops the repeats of states in place, each state kept at its
// first place.
func dedupe(states []any, equal func(a, b any) bool) []any {
	out := states[:0]
	for _, s := range states {
		if !containsEqual(out, s, equal) {
			out = append(out, s)
		}
	}
	clear(states[len(out):])
	return out
}

// containsEqual reports whether s equals one of set (compared as
// equal(s, u), ToModel's order).
func containsEqual(set []any, s any, equal func(a, b any) bool) bool {
	for _, u := range set {
		if equal(s, u) {
			return true
		}
	}
	return false
}

// sameSet is ToModel's Equal of two deduplicated sets: the same size,
// and every state of a equal to one of b.
func sameSet(a, b []any, equal func(a, b any) bool) bool {
	if len(a) != len(b) {
		return false
	}
	for _, s := range a {
		if !containsEqual(b, s, equal) {
			return false
		}
	}
	return true
}
