package sim

import (
	"runtime/debug"
	"sync"
)

// quietGC stops the collector until the returned func is called, for
// unpacking a long run: the collection that allocating its trace starts
// would otherwise run through the unpacking and put a write barrier on
// every event written (2.4 s of a 1,000-client run). Unpacking allocates
// nothing else; other goroutines (explore's other workers) allocate
// uncollected for as long as it lasts, about a second for 4 million
// events, unless GOMEMLIMIT is set. Pauses nest across goroutines: the
// last one to end restores the percentage the first one found.
func quietGC() (resume func()) {
	quiet.Lock()
	if quiet.n == 0 {
		quiet.old = debug.SetGCPercent(-1) // returns once no collection runs
	}
	quiet.n++
	quiet.Unlock()
	return func() {
		quiet.Lock()
		if quiet.n--; quiet.n == 0 {
			debug.SetGCPercent(quiet.old)
		}
		quiet.Unlock()
	}
}

var quiet struct {
	sync.Mutex
	n   int
	old int
}
