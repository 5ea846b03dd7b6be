package sim

import (
	"math/rand/v2"
)

// Streams hands out independent PRNG streams derived from one seed and a
// stream name, so that drawing more from one stream (say, a new fault)
// never shifts the draws of another (say, the network).
type Streams struct {
	seed uint64
	m    map[string]*rand.Rand
	room chunk[stream]
}

// NewStreams returns the streams of seed.
func NewStreams(seed uint64) *Streams {
	return &Streams{seed: seed, m: map[string]*rand.Rand{}}
}

// stream is one stream's generator and its source, allocated together.
type stream struct {
	src rand.PCG
	r   rand.Rand
}

// Get returns the stream called name, creating it on first use: a PCG
// seeded with the seed and the name's 64-bit FNV-1a hash.
func (s *Streams) Get(name string) *rand.Rand {
	if r, ok := s.m[name]; ok {
		return r
	}
	st := s.room.next()
	st.src.Seed(s.seed, fnv64a(name))
	st.r = *rand.New(&st.src)
	s.m[name] = &st.r
	return &st.r
}

// fnv64a is hash/fnv's New64a sum of name, without its allocations.
func fnv64a(name string) uint64 {
	h := uint64(14695981039346656037)
	for i := range len(name) {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return h
}
