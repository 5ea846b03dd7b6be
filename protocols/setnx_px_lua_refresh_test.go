package protocols

import (
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// The refresher keeps a lock held past its lease, stops at the release,
// and never extends a key another client took.
func TestSetnxPXLuaRefreshKeepsItsOwnKeyOnly(t *testing.T) {
	b := newBench(t, "setnx-px-lua-refresh")
	var heldLong, c2Got, c2Kept bool
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		l := b.lock("k")
		if ok, _ := l.Acquire(th); !ok {
			t.Error("c1 did not acquire a free lock")
		}
		th.Sleep(25 * time.Second) // 2.5 leases: the refresher keeps it
		r, _ := th.Call(MasterNode, "EXISTS", "k")
		heldLong = r.Int == 1
		l.Release(th)
	})
	b.proc("c2").Go("t1", func(th *sim.Thread) {
		th.Sleep(26 * time.Second)
		l := b.lock("k")
		c2Got, _ = l.Acquire(th)
		// c2 holds the key for a while with no refresher running for
		// c1: if c1's refresher still ran it would find c2's token and
		// answer 0.
		th.Sleep(5 * time.Second)
		r, _ := th.Call(MasterNode, "EXISTS", "k")
		c2Kept = r.Int == 1
		l.Release(th)
	})
	tr := b.run()
	switch {
	case !heldLong:
		t.Error("c1's key expired while its refresher ran")
	case !c2Got || !c2Kept:
		t.Errorf("c2 acquired %v, kept %v after c1's release", c2Got, c2Kept)
	}
	if n := count(tr, "EVAL", "k"); n < 4 {
		t.Errorf("%d EVALs on k, want at least two refreshes and two releases", n)
	}
}
