package sim

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// Threads that do not overlap share a coroutine; killed threads, started
// or not, give theirs back; none is left running after the run.
func TestThreadsReuseCoroutines(t *testing.T) {
	base := coroutines()
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
	if threads := w.nthreads; w.corosMade > 4 || threads != 23 {
		t.Fatalf("%d coroutines for %d threads", w.corosMade, threads)
	}
	if n := coroutines(); n > base {
		t.Fatalf("%d coroutines before the run, %d after", base, n)
	}
}

// A run takes the coroutines and the Redis store an earlier run of the
// same pool gave back; closing the pool ends its coroutines.
func TestPoolServesLaterRuns(t *testing.T) {
	pool := &Pool{}
	run := func() *World {
		w := New(Config{Seed: 1, Network: DefaultNetwork(), Pool: pool})
		w.AddNode("redis")
		for _, name := range []string{"c1", "c2", "c3"} {
			w.AddProcess(name).Go("main", func(th *Thread) {
				th.Call("redis", "INCR", "n")
				th.Go("tick", func(d *Thread) { d.Sleep(time.Millisecond) })
				th.Sleep(time.Second)
			})
		}
		if _, err := w.Run(); err != nil {
			t.Fatal(err)
		}
		w.Release()
		return w
	}
	base := coroutines()
	if first := run(); first.corosMade == 0 {
		t.Fatal("the first run found coroutines before any run made one")
	}
	if len(pool.stores) != 1 {
		t.Fatalf("the pool holds %d stores after a one-node run", len(pool.stores))
	}
	second := run()
	if second.corosMade != 0 {
		t.Fatalf("the second run made %d coroutines", second.corosMade)
	}
	if len(pool.stores) != 1 {
		t.Fatalf("the pool holds %d stores after two one-node runs: the second built its own", len(pool.stores))
	}
	pool.Close()
	if n := coroutines(); n > base {
		t.Fatalf("%d coroutines before, %d after the pool closed", base, n)
	}
}

// coroutines counts the goroutines iter.Pull started that are still alive.
func coroutines() int {
	buf := make([]byte, 1<<20)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "created by iter.Pull")
}
