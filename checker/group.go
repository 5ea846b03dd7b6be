package checker

// groupBy lists the indexes 0..n-1 by key, each key's in increasing
// order, all in one backing array (each slice capped at its own length);
// an index whose key reports false is left out. Hashing each key once and
// allocating once per map keeps a run's indexes cheap.
func groupBy[K comparable](n int, key func(int) (K, bool)) map[K][]int {
	slot := map[K]int32{}
	of := make([]int32, n)
	var counts []int
	for i := range n {
		k, ok := key(i)
		if !ok {
			of[i] = -1
			continue
		}
		s, seen := slot[k]
		if !seen {
			s = int32(len(counts))
			slot[k] = s
			counts = append(counts, 0)
		}
		of[i] = s
		counts[s]++
	}
	backing := make([]int, 0, n)
	parts := make([][]int, len(counts))
	for s, c := range counts {
		parts[s] = backing[len(backing) : len(backing) : len(backing)+c]
		backing = backing[:len(backing)+c]
	}
	for i, s := range of {
		if s >= 0 {
			parts[s] = append(parts[s], i)
		}
	}
	out := make(map[K][]int, len(slot))
	for k, s := range slot {
		out[k] = parts[s]
	}
	return out
}
