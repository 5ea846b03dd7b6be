package model

import "github.com/anishathalye/porcupine"

// Replayer steps a model through a history's operations one after the
// other, as a proof without a search does. For this package's models it
// keeps no state per step: a powerset's sets live in two slices reused
// from step to step (and history to history), a lease is stepped as the
// value it is. Not safe for concurrent use.
type Replayer struct {
	m         porcupine.Model
	cur, next []any
}

// NewReplayer replays histories against m.
func NewReplayer(m porcupine.Model) *Replayer { return &Replayer{m: m} }

// Accepts reports whether m, from its initial state, accepts every
// operation of ops in order: the operations at the indexes of order, or
// all of ops as they are when order is nil.
func (r *Replayer) Accepts(ops []porcupine.Operation, order []int) bool {
	state := r.m.Init()
	switch s := state.(type) {
	case *stateSet:
		return r.acceptsSets(s, ops, order)
	case Lease:
		return acceptsLeases(s, ops, order)
	}
	for k := range steps(ops, order) {
		op := ops[at(order, k)]
		var ok bool
		if ok, state = r.m.Step(state, op.Input, op.Output); !ok {
			return false
		}
	}
	return true
}

func (r *Replayer) acceptsSets(init *stateSet, ops []porcupine.Operation, order []int) bool {
	cur, next := append(r.cur[:0], init.states...), r.next[:0]
	ok := true
	for k := range steps(ops, order) {
		op := ops[at(order, k)]
		next = next[:0]
		for _, s := range cur {
			next = init.of.step(s, op.Input, op.Output, next)
		}
		if next = dedupe(next, init.of.equal); len(next) == 0 {
			ok = false
			break
		}
		cur, next = next, cur
	}
	r.cur, r.next = cur[:0], next[:0]
	return ok
}

func acceptsLeases(s Lease, ops []porcupine.Operation, order []int) bool {
	for k := range steps(ops, order) {
		var ok bool
		if s, ok = leaseStep(s, inputOf[LeaseInput](ops[at(order, k)].Input)); !ok {
			return false
		}
	}
	return true
}

// steps is how many operations a replay steps through.
func steps(ops []porcupine.Operation, order []int) int {
	if order == nil {
		return len(ops)
	}
	return len(order)
}

// at is the index of the k-th operation to step through.
func at(order []int, k int) int {
	if order == nil {
		return k
	}
	return order[k]
}
