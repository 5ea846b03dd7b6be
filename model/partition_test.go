package model

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/anishathalye/porcupine"
)

// TestPartitionAsAppend compares partition with appending each operation
// to its key's part, over one key, a few and many, with runs of equal
// keys; a part's capacity ends where its operations do.
func TestPartitionAsAppend(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, distinct := range []int{1, 3, 40} {
		for round := range 50 {
			history := make([]porcupine.Operation, r.IntN(120))
			for i := range history {
				k := r.IntN(distinct)
				if i > 0 && r.IntN(3) == 0 {
					k = history[i-1].ClientId
				}
				history[i] = porcupine.Operation{ClientId: k, Call: int64(i)}
			}
			for i := range history { // the input is the key
				history[i].Input = partKey{string(rune('a' + history[i].ClientId))}
			}
			got := partition(history, func(in any) partKey { return in.(partKey) })
			var want [][]porcupine.Operation
			place := map[partKey]int{}
			for _, op := range history {
				k := op.Input.(partKey)
				i, ok := place[k]
				if !ok {
					i = len(want)
					place[k] = i
					want = append(want, nil)
				}
				want[i] = append(want[i], op)
			}
			if len(history) == 0 {
				if len(got) != 0 {
					t.Fatalf("empty history: %d parts", len(got))
				}
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%d keys, round %d: parts differ", distinct, round)
			}
			for i, p := range got {
				if cap(p) != len(p) && len(got) > 1 {
					t.Fatalf("%d keys, round %d: part %d has cap %d, len %d", distinct, round, i, cap(p), len(p))
				}
			}
		}
	}
}
