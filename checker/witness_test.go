package checker

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/locksim/locksim/model"
)

// TestWitnessNeverContradictsPorcupine: a witness order proves a history
// linearizable, so porcupine must find every history with one legal; and
// the draws must give the witness both outcomes.
func TestWitnessNeverContradictsPorcupine(t *testing.T) {
	m := model.Mutex()
	r := rand.New(rand.NewPCG(3, 5))
	found, missed := 0, 0
	for i := range 3000 {
		ops := randomLockHistory(r, 2+r.IntN(12))
		want := porcupine.CheckOperationsTimeout(m, ops, 10*time.Second)
		switch {
		case witnessOK(model.NewReplayer(m), ops) && want != porcupine.Ok:
			t.Fatalf("history %d: witness order accepted, porcupine %v:\n%s", i, want, fmt.Sprint(ops))
		case witnessOK(model.NewReplayer(m), ops):
			found++
		case want == porcupine.Ok:
			missed++
		}
	}
	if found < 50 || missed < 10 {
		t.Fatalf("draws too one-sided: %d witnessed, %d linearizable without a witness", found, missed)
	}
}

// waitingClients is n clients that all call acquire at once and get the
// lock in turn: each acquire returns after the previous holder's release
// was sent and before its reply came back, so operations overlap
// everywhere while holds never do. holdsOverlap makes one client acquire
// before the previous holder released.
func waitingClients(n int, holdsOverlap bool) []porcupine.Operation {
	var ops []porcupine.Operation
	t := int64(100)
	for i := range n {
		owner := fmt.Sprintf("c%d/t1", i+1)
		acqRet := t + 5
		if holdsOverlap && i == n/2 {
			acqRet = t - 50
		}
		ops = append(ops,
			porcupine.Operation{ClientId: 2 * i, Input: model.LockInput{Acquire: true, Key: "k", Owner: owner},
				Output: model.LockOutput{OK: true}, Call: 0, Return: acqRet},
			porcupine.Operation{ClientId: 2*i + 1, Input: model.LockInput{Key: "k", Owner: owner},
				Output: model.LockOutput{OK: true}, Call: t + 100, Return: t + 110})
		t += 100 + 2 // the next acquire returns before this release's reply
	}
	return ops
}

// TestWitnessDecidesManyWaitingClients: 300 clients waiting on one lock
// are beyond any search budget, yet the witness proves the history legal
// at once; with two holds overlapping it is rejected and the search, not
// the witness, gives the verdict.
func TestWitnessDecidesManyWaitingClients(t *testing.T) {
	m := model.Mutex()
	legal := waitingClients(300, false)
	if !overlapping(inCallOrder(legal)) {
		t.Fatal("the history's operations should overlap")
	}
	if got := checkHistory(m, legal, 1000); got != porcupine.Ok {
		t.Fatalf("waiting clients, holds apart: %v, want ok", got)
	}
	bad := waitingClients(300, true)
	if witnessOK(model.NewReplayer(m), bad) {
		t.Fatal("a witness accepted overlapping holds")
	}
	if got := checkHistory(m, bad, 1000); got == porcupine.Ok {
		t.Fatalf("overlapping holds: %v, want illegal or unknown", got)
	}
}
