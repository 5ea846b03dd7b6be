package sim

import (
	"runtime/debug"
	"sync"
	"testing"
)

// gcPercent reads the collector's percentage.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// Quiet spells that overlap, from several goroutines, keep the collector
// off until the last ends, which restores the percentage found first.
func TestQuietGCNests(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	outer := quietGC()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				quietGC()()
			}
		})
	}
	wg.Wait()
	if p := gcPercent(); p != -1 {
		t.Fatalf("inside a quiet spell the percentage is %d", p)
	}
	outer()
	if p := gcPercent(); p != 123 {
		t.Fatalf("after the last spell the percentage is %d, want 123", p)
	}
}
