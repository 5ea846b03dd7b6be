package checker

import (
	"testing"

	"github.com/locksim/locksim/sim/trace"
)

// TestTimelineHoldsAndKeySpans: the holds the checker exposes keep a
// reentrant client's nested acquires inside one hold, ended by its outer
// release; the key spans follow the key from its creation to its deletion
// on the node, with its owner and TTL.
func TestTimelineHoldsAndKeySpans(t *testing.T) {
	res := Check(reentrant(3.5, false), Options{LeaseMs: 30000})
	hs := res.Holds()
	if len(hs) != 2 {
		t.Fatalf("holds %+v", hs)
	}
	want := Hold{Key: "k", Client: "c1/t1", Process: hs[0].Process, Acquire: 0, Release: 3, Start: sec(0.2), End: sec(3),
		Crash: -1, Nested: true}
	if hs[0] != want {
		t.Fatalf("the reentrant hold: %+v, want %+v", hs[0], want)
	}
	if h := hs[1]; h.Client != "c2/t1" || h.End != Forever || h.Release != -1 || h.Nested {
		t.Fatalf("c2's hold, never released: %+v", h)
	}
	ks := res.KeySpans()
	if len(ks) != 2 {
		t.Fatalf("key spans %+v", ks)
	}
	if s := ks[0]; s.Node != "redis" || s.Owner != "c1/t1" || s.Start != sec(0.1) || s.End != sec(3.1) || s.EndHow != trace.KeyDeleted {
		t.Fatalf("c1's key: %+v", s)
	}
	if s := ks[1]; s.Owner != "c2/t1" || s.End != Forever || s.EndEv != -1 || s.TTL[0].TTL != sec(30) {
		t.Fatalf("c2's key: %+v", s)
	}
}
