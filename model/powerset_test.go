package model

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/anishathalye/porcupine"
)

// TestPowersetIsToModel steps powerset and porcupine's own ToModel side by
// side through random walks of a nondeterministic model whose steps give
// none, one or several successors, repeats included, and requires the
// same verdict and the same state set, in the same order, at every step.
func TestPowersetIsToModel(t *testing.T) {
	succ := func(state, input any) []any {
		s, in := state.(int), input.(int)
		switch (s*7 + in) % 6 {
		case 0:
			return nil
		case 1:
			return []any{(s + in) % 5}
		case 2:
			return []any{s, (s + 1) % 5}
		case 3:
			return []any{(s + 2) % 5, (s + 2) % 5, s}
		case 4:
			return []any{s}
		}
		return []any{(s + in) % 5, (s + 3) % 5, (s + 4) % 5}
	}
	for _, init := range [][]any{{0}, {3, 1, 3}} {
		nm := porcupine.NondeterministicModel{
			Init:          func() []any { return append([]any(nil), init...) },
			Equal:         func(a, b any) bool { return a.(int) == b.(int) },
			DescribeState: func(s any) string { return fmt.Sprint(s) },
		}
		step := func(state, input, _ any, next []any) []any { return append(next, succ(state, input)...) }
		want := nm
		want.Step = func(state, input, _ any) []any { return succ(state, input) }
		walkBoth(t, want.ToModel(), powerset(nm, step))
	}
}

func walkBoth(t *testing.T, want, got porcupine.Model) {
	t.Helper()
	if d, w := got.DescribeState(got.Init()), want.DescribeState(want.Init()); d != w {
		t.Fatalf("initial state %s, ToModel %s", d, w)
	}
	r := rand.New(rand.NewPCG(1, 2))
	multi := 0
	for walk := 0; walk < 2000; walk++ {
		ws, gs := want.Init(), got.Init()
		for step := 0; step < 12; step++ {
			in := r.IntN(9)
			wok, wnext := want.Step(ws, in, nil)
			gok, gnext := got.Step(gs, in, nil)
			if wok != gok {
				t.Fatalf("walk %d step %d: ok %v, ToModel %v", walk, step, gok, wok)
			}
			if !wok {
				break
			}
			states := gnext.(*stateSet).states
			if d, w := got.DescribeState(gnext), want.DescribeState(wnext); d != w || !want.Equal(wnext, states) {
				t.Fatalf("walk %d step %d: state %s, ToModel %s", walk, step, d, w)
			}
			if got.Equal(gs, gnext) != want.Equal(ws, wnext) {
				t.Fatalf("walk %d step %d: Equal to the last state disagrees with ToModel's", walk, step)
			}
			if len(states) > 1 {
				multi++
			}
			ws, gs = wnext, gnext
		}
	}
	if multi == 0 {
		t.Fatal("no walk reached a set of several states")
	}
}
