package checker

// groupBy lists the indexes 0..n-1 by key, each key's in increasing
// order, all in one backing array (each slice capped at its own length);
// an index whose key reports false is left out. Hashing each key once and
// allocating once per map keeps a run's indexes cheap.
func groupBy[K comparable](n int, key func(int) (K, bool)) map[K][]int {
	slot := map[K]int32{}
	of := make([]int32, n)
	next := make([]int, 0, 32) // per slot: its count, then where it fills
	var last K
	lastSlot := int32(-1)
	for i := range n {
		k, ok := key(i)
		if !ok {
			of[i] = -1
			continue
		}
		s := lastSlot
		if s < 0 || k != last {
			var seen bool
			if s, seen = slot[k]; !seen {
				s = int32(len(next))
				slot[k] = s
				next = append(next, 0)
			}
			last, lastSlot = k, s
		}
		of[i] = s
		next[s]++
	}
	start := 0
	for s, c := range next {
		next[s], start = start, start+c
	}
	backing := make([]int, start)
	for i, s := range of {
		if s >= 0 {
			backing[next[s]] = i
			next[s]++
		}
	}
	out := make(map[K][]int, len(slot))
	for k, s := range slot {
		end := next[s]
		begin := 0
		if s > 0 {
			begin = next[s-1]
		}
		out[k] = backing[begin:end:end]
	}
	return out
}
