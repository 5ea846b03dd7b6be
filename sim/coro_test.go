package sim

import (
	"runtime"
	"testing"
	"time"
)

// Threads that do not overlap share a coroutine; killed threads, started
// or not, give theirs back; none is left running after the run.
func TestThreadsReuseCoroutines(t *testing.T) {
	base := runtime.NumGoroutine()
	w := New(Config{Seed: 1, Network: DefaultNetwork()})
	w.AddNode("redis")
	ticks := 0
	w.AddProcess("c1").Go("main", func(th *Thread) {
		for range 20 {
			th.Go("tick", func(d *Thread) {
				d.Sleep(time.Millisecond)
				ticks++
			})
			th.Sleep(10 * time.Millisecond)
		}
	})
	victim := w.AddProcess("c2")
	unwound := 0
	victim.Go("holder", func(th *Thread) {
		defer func() { unwound++ }()
		th.Call("redis", "SET", "k", "v")
		th.Sleep(time.Hour)
	})
	w.At(50*time.Millisecond, func() {
		victim.Go("late", func(*Thread) { t.Error("a thread spawned by a crashing process ran") })
		victim.Crash(-1)
	})
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if ticks != 20 || unwound != 1 {
		t.Fatalf("ticks %d, unwound %d", ticks, unwound)
	}
	if threads := len(w.threads); w.corosMade > 4 || threads != 23 {
		t.Fatalf("%d coroutines for %d threads", w.corosMade, threads)
	}
	if n := runtime.NumGoroutine(); n > base {
		t.Fatalf("%d goroutines before the run, %d after", base, n)
	}
}
