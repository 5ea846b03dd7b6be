package sim

import (
	"hash/fnv"
	"math/rand/v2"
)

// Streams hands out independent PRNG streams derived from one seed and a
// stream name, so that drawing more from one stream (say, a new fault)
// never shifts the draws of another (say, the network).
type Streams struct {
	seed uint64
	m    map[string]*rand.Rand
}

// NewStreams returns the streams of seed.
func NewStreams(seed uint64) *Streams {
	return &Streams{seed: seed, m: map[string]*rand.Rand{}}
}

// Get returns the stream called name, creating it on first use.
func (s *Streams) Get(name string) *rand.Rand {
	if r, ok := s.m[name]; ok {
		return r
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	r := rand.New(rand.NewPCG(s.seed, h.Sum64()))
	s.m[name] = r
	return r
}
