package sim

import "testing"

// TestChunkKeepsFewArraysAndReusesThem: a long run's chunk keeps only
// its first chunkKept arrays (the 1,000-client run's memory depends on
// it), and after a reset hands out those arrays again, cleared.
func TestChunkKeepsFewArraysAndReusesThem(t *testing.T) {
	var c chunk[rpc]
	first := c.next()
	first.what = "GET"
	for range 100_000 {
		c.next().what = "SET"
	}
	if len(c.arrays) != chunkKept || c.used != chunkKept {
		t.Fatalf("kept %d arrays (%d used), want %d", len(c.arrays), c.used, chunkKept)
	}
	c.reset()
	again := c.next()
	if again != first {
		t.Fatal("after a reset the first value does not come from the first kept array")
	}
	if again.what != "" {
		t.Fatalf("reused value not cleared: %q", again.what)
	}
	for range 100_000 {
		if v := c.next(); v.what != "" {
			t.Fatalf("reused value not cleared: %q", v.what)
		}
	}
	if len(c.arrays) != chunkKept {
		t.Fatalf("kept %d arrays after reuse, want %d", len(c.arrays), chunkKept)
	}
}
