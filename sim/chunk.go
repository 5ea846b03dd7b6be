package sim

import "unsafe"

// chunk hands out zeroed values of T from arrays allocated a few at a
// time: a run makes its calls, threads and waits by the dozen, one
// allocation each otherwise, and they die with the run. The arrays grow
// from chunkMin values to about chunkBytes, so a short run wastes little.
type chunk[T any] struct {
	rest []T
	n    int // the length of the last array
}

const (
	chunkMin   = 4
	chunkBytes = 4096
)

// next returns a zeroed T.
func (c *chunk[T]) next() *T {
	if len(c.rest) == 0 {
		var v T
		c.n = min(max(2*c.n, chunkMin), max(chunkBytes/int(unsafe.Sizeof(v)), chunkMin))
		c.rest = make([]T, c.n)
	}
	v := &c.rest[0]
	c.rest = c.rest[1:]
	return v
}
