package checker

import (
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

// TestGroupByAsAppend compares groupBy with the map of appends it
// replaces, over few keys and many, runs of equal keys and left-out
// indexes.
func TestGroupByAsAppend(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, distinct := range []int{1, 3, 16, 17, 60} {
		for round := 0; round < 50; round++ {
			n := r.IntN(300)
			keys := make([]string, n)
			for i := range keys {
				if i > 0 && r.IntN(3) == 0 {
					keys[i] = keys[i-1]
					continue
				}
				keys[i] = strconv.Itoa(r.IntN(distinct + 1)) // "distinct" itself is left out
			}
			skip := strconv.Itoa(distinct)
			want := map[string][]int{}
			for i, k := range keys {
				if k != skip {
					want[k] = append(want[k], i)
				}
			}
			got := groupBy(n, func(i int) (string, bool) { return keys[i], keys[i] != skip })
			if m := maps.Collect(got.all()); !reflect.DeepEqual(m, want) {
				t.Fatalf("%d keys, round %d: got %v, want %v", distinct, round, m, want)
			}
			for k, idx := range want {
				if !slices.Equal(got.get(k), idx) {
					t.Fatalf("%d keys, round %d: get(%s) = %v, want %v", distinct, round, k, got.get(k), idx)
				}
			}
			if got.get(skip) != nil {
				t.Fatalf("get of a key left out: %v", got.get(skip))
			}
			for k, idx := range got.all() {
				if cap(idx) != len(idx) {
					t.Fatalf("%s: cap %d, len %d: an append would write into another key's indexes", k, cap(idx), len(idx))
				}
			}
		}
	}
}
