package checker

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/locksim/locksim/model"
)

// randomLockHistory draws overlapping acquires, releases and renewals of
// up to three owners on one key, some with unknown outcomes, in the shapes
// the checker builds (unknown outcomes return at the end of the history).
func randomLockHistory(r *rand.Rand, n int) []porcupine.Operation {
	owners := []string{"c1/t1", "c2/t1", "c3/t1"}
	ops := make([]porcupine.Operation, 0, n)
	for i := range n {
		call := r.Int64N(int64(4 * n))
		ret := call + 1 + r.Int64N(6)
		in := model.LockInput{Key: "k", Owner: owners[r.IntN(len(owners))]}
		switch r.IntN(3) {
		case 0:
			in.Acquire = true
		case 1:
			in.Renew = true
		}
		out := model.LockOutput{OK: r.IntN(4) != 0}
		if r.IntN(8) == 0 {
			out = model.LockOutput{Unknown: true}
			ret = int64(8 * n)
		}
		if in.Acquire && !out.OK && !out.Unknown {
			continue // the checker leaves failed acquires out
		}
		ops = append(ops, porcupine.Operation{ClientId: i, Input: in, Output: out, Call: call, Return: ret})
	}
	return ops
}

// TestStepBudgetSearchAgreesWithPorcupine: the checker's own bounded
// search must give porcupine's answer on every history it decides.
func TestStepBudgetSearchAgreesWithPorcupine(t *testing.T) {
	m := model.Mutex()
	r := rand.New(rand.NewPCG(7, 11))
	seen := map[porcupine.CheckResult]int{}
	for i := range 3000 {
		ops := randomLockHistory(r, 2+r.IntN(12))
		left := 1 << 30
		got := linearizable(m, ops, &left)
		want := porcupine.CheckOperationsTimeout(m, ops, 10*time.Second)
		seen[want]++
		if want == porcupine.Unknown {
			continue
		}
		if (got == searchOK) != (want == porcupine.Ok) || got == searchExceeded {
			t.Fatalf("history %d: step-budget search %v, porcupine %v:\n%s", i, got, want, fmt.Sprint(ops))
		}
	}
	if seen[porcupine.Ok] < 100 || seen[porcupine.Illegal] < 100 {
		t.Fatalf("draws too one-sided to compare: %v", seen)
	}
}
