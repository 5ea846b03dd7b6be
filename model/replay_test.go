package model

import (
	"math/rand/v2"
	"testing"

	"github.com/anishathalye/porcupine"
)

// TestReplayerIsStep replays random histories, in their order and in a
// shuffled one, through one Replayer per model and requires the verdict
// of stepping the model's own Step from its Init.
func TestReplayerIsStep(t *testing.T) {
	owners := []string{"c1/t1", "c1/t2", "c2/t1"}
	lock := func(r *rand.Rand) (any, any) {
		in := LockInput{Key: "k", Owner: owners[r.IntN(len(owners))]}
		switch r.IntN(4) {
		case 0:
			in.Acquire = true
		case 1:
			in.Renew = true
		case 2:
			in.Crash = true
		}
		return &in, LockOutput{OK: r.IntN(3) > 0, Unknown: r.IntN(4) == 0}
	}
	lease := func(r *rand.Rand) (any, any) {
		in := LeaseInput{Kind: LeaseKind(r.IntN(len(leaseVerbs))), Key: "k", Owner: owners[r.IntN(len(owners))]}
		return &in, nil
	}
	insert := func(r *rand.Rand) (any, any) {
		return InsertInput{Name: "n"}, InsertOutput{Inserted: r.IntN(2) == 0, Unknown: r.IntN(3) == 0}
	}
	set := func(r *rand.Rand) (any, any) {
		if r.IntN(3) == 0 {
			return SetInput{Key: "k"}, SetOutput{Read: []string{"", "a", "a,b"}[r.IntN(3)]}
		}
		return SetInput{Key: "k", Add: true, Elem: []string{"a", "b"}[r.IntN(2)]}, SetOutput{OK: true, Unknown: r.IntN(3) == 0}
	}
	for _, c := range []struct {
		name string
		m    porcupine.Model
		op   func(*rand.Rand) (any, any)
	}{
		{"mutex", Mutex(), lock},
		{"reentrant", ReentrantMutex(), lock},
		{"lease", LeaseMutex(), lease},
		{"unique-set", UniqueSet(), insert},
		{"lock-set", LockSet(), set},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 8))
			rp := NewReplayer(c.m)
			accepted := 0
			for h := 0; h < 3000; h++ {
				ops := make([]porcupine.Operation, 1+r.IntN(8))
				for i := range ops {
					ops[i].Input, ops[i].Output = c.op(r)
				}
				order := r.Perm(len(ops))
				for _, o := range [][]int{nil, order} {
					want := stepAll(c.m, ops, o)
					if got := rp.Accepts(ops, o); got != want {
						t.Fatalf("history %d, order %v: Accepts %v, Step %v", h, o, got, want)
					}
					if want {
						accepted++
					}
				}
			}
			if accepted < 100 || accepted > 5900 {
				t.Fatalf("draws too one-sided: %d of 6000 accepted", accepted)
			}
		})
	}
}

func stepAll(m porcupine.Model, ops []porcupine.Operation, order []int) bool {
	state := m.Init()
	for k := range steps(ops, order) {
		op := ops[at(order, k)]
		var ok bool
		if ok, state = m.Step(state, op.Input, op.Output); !ok {
			return false
		}
	}
	return true
}
