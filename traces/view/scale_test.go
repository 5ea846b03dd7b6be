package view

import (
	"fmt"
	"strings"
	"testing"

	"github.com/locksim/locksim/traces/recorded"
)

// turnsHistory is a recorded history of n holds of one key with a
// lease, procs processes taking it in turn 1 ms apart, each for hold ns
// (past the next one's acquire from 1 ms).
func turnsHistory(t *testing.T, n, procs int, hold int64) *recorded.History {
	t.Helper()
	var sb strings.Builder
	for i := range n {
		p, at := i%procs, int64(i)*1_000_000
		fmt.Fprintf(&sb, `{"process":"p%d","type":"invoke","f":"acquire","key":"k","value":null,"time":%d}`+"\n", p, at)
		fmt.Fprintf(&sb, `{"process":"p%d","type":"ok","f":"acquire","key":"k","value":"t%d","lease_ms":5000,"time":%d}`+"\n", p, i, at+100_000)
		fmt.Fprintf(&sb, `{"process":"p%d","type":"invoke","f":"release","key":"k","value":"t%d","time":%d}`+"\n", p, i, at+hold)
		fmt.Fprintf(&sb, `{"process":"p%d","type":"ok","f":"release","key":"k","value":"t%d","time":%d}`+"\n", p, i, at+hold+100_000)
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
	o, err := recorded.CheckWhole(turnsHistory(t, n, 2, 800_000), "turns.jsonl")
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

// Each violation finds its holds among its clients' own: the timeline
// of a history with a violation at every handover is not quadratic.
func TestViolationsVisitTheirClients(t *testing.T) {
	const n = 1000
	o, err := recorded.CheckWhole(turnsHistory(t, n, n, 1_500_000), "overlaps.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b := build(o.File, o.Result)
	if len(b.vm.Violations) != n-1 {
		t.Fatalf("%d violations, want one per handover, %d", len(b.vm.Violations), n-1)
	}
	for _, v := range b.vm.Violations {
		if len(v.Holds) != 2 {
			t.Fatalf("violation %+v: want its two holds", v)
		}
	}
	if b.visits > 6*n {
		t.Errorf("the leases and violations looked at %d spans, holds and operations, budget %d", b.visits, 6*n)
	}
}
