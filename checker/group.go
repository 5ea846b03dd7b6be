package checker

// groupBy lists the indexes 0..n-1 by key, each key's in increasing
// order, all in one backing array (each slice capped at its own length);
// an index whose key reports false is left out. A run's few keys are
// found by comparison (a hash table only past smallKeys of them), once
// per run of equal keys.
func groupBy[K comparable](n int, key func(int) (K, bool)) map[K][]int {
	keys := make([]K, 0, smallKeys) // by slot
	var index map[K]int32
	of := make([]int32, n)
	count := make([]int, 0, smallKeys) // per slot: its count, then where it fills
	var last K
	lastSlot := int32(-1)
	for i := range n {
		k, ok := key(i)
		if !ok {
			of[i] = -1
			continue
		}
		if lastSlot < 0 || k != last {
			lastSlot = slotOf(keys, index, k)
			if int(lastSlot) == len(keys) {
				keys, count = append(keys, k), append(count, 0)
				if index != nil || len(keys) > smallKeys {
					index = indexKeys(index, keys)
				}
			}
			last = k
		}
		of[i] = lastSlot
		count[lastSlot]++
	}
	start := 0
	for s, c := range count {
		count[s], start = start, start+c
	}
	backing := make([]int, start)
	for i, s := range of {
		if s >= 0 {
			backing[count[s]] = i
			count[s]++
		}
	}
	out := make(map[K][]int, len(keys))
	begin := 0
	for s, k := range keys {
		end := count[s]
		out[k] = backing[begin:end:end]
		begin = end
	}
	return out
}

const smallKeys = 16

// slotOf is k's place in keys, len(keys) for a new key; index, when
// made, holds the same.
func slotOf[K comparable](keys []K, index map[K]int32, k K) int32 {
	if index != nil {
		if s, ok := index[k]; ok {
			return s
		}
		return int32(len(keys))
	}
	for s, x := range keys {
		if x == k {
			return int32(s)
		}
	}
	return int32(len(keys))
}

// indexKeys adds keys' last to index, making it from all of keys if nil.
func indexKeys[K comparable](index map[K]int32, keys []K) map[K]int32 {
	if index == nil {
		index = make(map[K]int32, 2*len(keys))
		for s, k := range keys {
			index[k] = int32(s)
		}
		return index
	}
	index[keys[len(keys)-1]] = int32(len(keys) - 1)
	return index
}
