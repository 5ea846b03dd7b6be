package view

import (
	"fmt"
	"strings"
	"testing"

	"github.com/locksim/locksim/traces/recorded"
)

// turnsHistory is a recorded history of n holds of one key with a
// lease, two processes taking it in turn, 1 ms apart.
func turnsHistory(t *testing.T, n int) *recorded.History {
	t.Helper()
	var sb strings.Builder
	for i := range n {
		p, at := i%2, int64(i)*1_000_000
		fmt.Fprintf(&sb, `{"process":"p%d","type":"invoke","f":"acquire","key":"k","value":null,"time":%d}`+"\n", p, at)
		fmt.Fprintf(&sb, `{"process":"p%d","type":"ok","f":"acquire","key":"k","value":"t%d","lease_ms":5000,"time":%d}`+"\n", p, i, at+100_000)
		fmt.Fprintf(&sb, `{"process":"p%d","type":"invoke","f":"release","key":"k","value":"t%d","time":%d}`+"\n", p, i, at+800_000)
		fmt.Fprintf(&sb, `{"process":"p%d","type":"ok","f":"release","key":"k","value":"t%d","time":%d}`+"\n", p, i, at+900_000)
	}
	h, err := recorded.ReadJSONL(strings.NewReader(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// Each hold finds its lease among a few key spans, not among all of
// them: the timeline of a long history is built in n log n.
func TestLeaseVisitsFewSpans(t *testing.T) {
	const n = 2000
	o, err := recorded.CheckWhole(turnsHistory(t, n), "turns.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b := build(o.File, o.Result)
	if len(b.vm.Holds) != n || len(b.vm.Keys) != n {
		t.Fatalf("%d holds and %d key spans, want %d of each", len(b.vm.Holds), len(b.vm.Keys), n)
	}
	for _, h := range b.vm.Holds {
		if len(h.Spans) != 1 || len(h.NoLease) != 0 {
			t.Fatalf("hold %+v: want its one key span and no time outside its lease", h)
		}
	}
	if b.visits > 2*n {
		t.Errorf("the holds' leases looked at %d key spans, budget %d", b.visits, 2*n)
	}
}
