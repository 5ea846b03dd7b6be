package sim

import (
	"testing"
	"time"
)

// A thread whose calls are answered long before their timeouts leaves
// no event per call behind in the queue: each disarmed timeout is a slot
// pointing at the thread's one ghost, and still takes its step.
func TestDisarmedTimersKeepNoEvent(t *testing.T) {
	w := New(Config{Seed: 1, Network: DefaultNetwork(), CommandTimeout: time.Hour})
	w.AddNode("redis")
	p := w.AddProcess("c1")
	const calls = 200
	var live, ghosts int
	p.Go("main", func(th *Thread) {
		for range calls {
			if _, err := th.Call("redis", "INCR", "n"); err != nil {
				t.Error(err)
			}
		}
		seen := map[*event]bool{}
		for _, x := range w.q {
			if x.e.ghost {
				ghosts++
			} else {
				seen[x.e] = true
			}
		}
		live = len(seen)
	})
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if ghosts != calls || live > 2 {
		t.Fatalf("queue held %d ghost slots and %d events after %d calls; want %d and at most 2", ghosts, live, calls, calls)
	}
}
