package checker

import (
	"fmt"
	"testing"
)

// Each overlap looks for its holder's re-take among that process's
// grants of the key, not among all: a history with an overlap at every
// handover is explained in linear time.
func TestRetakenVisitsTheHoldersGrants(t *testing.T) {
	const n = 1000
	b := &tb{}
	for i := range n {
		b.section(fmt.Sprintf("c%d/t1", i), "redis", "k", float64(i), float64(i)+1.5)
	}
	tt := newTruth(b.trace(), Options{})
	ovs := overlaps(indexHolds(holds(tt)))
	if len(ovs) != n-1 {
		t.Fatalf("%d overlaps, want %d", len(ovs), n-1)
	}
	for _, ov := range ovs {
		explainOverlap(tt, ov, 0)
	}
	if tt.visits > 2*n {
		t.Errorf("the overlaps looked at %d grants, budget %d", tt.visits, 2*n)
	}
}
