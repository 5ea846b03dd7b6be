package sim

import (
	"testing"
	"time"
)

// The sentinel stops reporting a replica it cannot reach once down-after
// has passed (s_down), and one whose link to the master is cut once its
// next INFO says so; both count again when healed.
func TestSentinelReportsAvailableReplicas(t *testing.T) {
	w, m, r1 := replicated(t, 3, 10*ms)
	r2 := w.AddNode("redis-r2")
	w.AddReplica(m, r2)
	got := map[time.Duration]int{}
	w.AddProcess("c1").Go("main", func(th *Thread) {
		for _, at := range []time.Duration{500 * ms, 2500 * ms, 3500 * ms, 13 * time.Second, 33 * time.Second} {
			th.Sleep(at - th.Now())
			got[at] = th.World().AvailableReplicas()
		}
	})
	w.At(2*time.Second, func() { w.Net().Block(Sentinel, r2.Name) })
	w.At(2*time.Second, func() { w.Net().Block(m.Name, r1.Name) })
	w.At(20*time.Second, func() { w.Net().Unblock(Sentinel, r2.Name); w.Net().Unblock(m.Name, r1.Name) })
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	// Down-after is 1 s; INFO goes every 10 s from the first round (0.2 s).
	want := map[time.Duration]int{500 * ms: 2, 2500 * ms: 2, 3500 * ms: 1, 13 * time.Second: 0, 33 * time.Second: 2}
	for at, n := range want {
		if got[at] != n {
			t.Errorf("at %v: %d available replicas, want %d (all: %v)", at, got[at], n, got)
		}
	}
}
