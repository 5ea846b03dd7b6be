package model

// Slots numbers keys in the order they are first added. A run has few
// keys (lock names, clients, parties), so they are found by comparison;
// a hash table is made only past smallSlots of them. Partition and the
// checker's groupings both find their keys this way.
type Slots[K comparable] struct {
	Keys  []K // by slot
	index map[K]int32
}

const smallSlots = 16

// MakeSlots returns Slots with room for n keys before it grows.
func MakeSlots[K comparable](n int) Slots[K] { return Slots[K]{Keys: make([]K, 0, n)} }

// Find is k's slot, and whether k has one (the slot means nothing if not).
func (s *Slots[K]) Find(k K) (int, bool) {
	if s.index != nil {
		i, ok := s.index[k]
		return int(i), ok
	}
	for i, x := range s.Keys {
		if x == k {
			return i, true
		}
	}
	return len(s.Keys), false
}

// Add is k's slot, k given the next one if it has none.
func (s *Slots[K]) Add(k K) int {
	if i, ok := s.Find(k); ok {
		return i
	}
	s.Keys = append(s.Keys, k)
	switch {
	case s.index != nil:
		s.index[k] = int32(len(s.Keys) - 1)
	case len(s.Keys) > smallSlots:
		s.index = make(map[K]int32, 2*len(s.Keys))
		for i, x := range s.Keys {
			s.index[x] = int32(i)
		}
	}
	return len(s.Keys) - 1
}
