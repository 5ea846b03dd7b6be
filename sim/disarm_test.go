package sim

import (
	"testing"
	"time"
)

// A thread whose calls are answered long before their timeouts leaves
// nothing per call behind in the queue: each disarmed timeout is gone.
func TestDisarmedTimersLeaveTheQueue(t *testing.T) {
	w := New(Config{Seed: 1, Network: DefaultNetwork(), CommandTimeout: time.Hour})
	w.AddNode("redis")
	p := w.AddProcess("c1")
	const calls = 200
	var queued int
	p.Go("main", func(th *Thread) {
		for range calls {
			if _, err := th.Call("redis", "INCR", "n"); err != nil {
				t.Error(err)
			}
		}
		queued = w.q.Len()
	})
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if queued > 2 {
		t.Fatalf("queue held %d events after %d calls; want at most 2", queued, calls)
	}
}
