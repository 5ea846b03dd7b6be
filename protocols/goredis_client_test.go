package protocols

import (
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// redsync waits for every master, and go-redis does not let the try's
// 400 ms deadline cut a read short: with one master's replies lost on an
// open connection, Lock returns after the 5 s read timeout, holding the
// other four, and its validity is what is left of the 8 s. A dial, on
// the other hand, waits for the context: the same loss before the
// connection is open ends the attempt at the 400 ms deadline.
func TestRedlockWaitsOutGoRedisReadTimeout(t *testing.T) {
	for _, open := range []bool{true, false} {
		nodes := []string{"redis-1", "redis-2", "redis-3", "redis-4", "redis-5"}
		b := newBench(t, "redlock", nodes...)
		var ok bool
		var took time.Duration
		var l *redlock
		b.proc("c1").Go("t1", func(th *sim.Thread) {
			l = b.lock("op").(*redlock)
			if open {
				l.Acquire(th)
				l.Release(th)
			}
			b.w.Net().Block("redis-5", "c1")
			start := th.Monotonic()
			ok, _ = l.Acquire(th)
			took = th.Monotonic() - start
			l.until -= start
		})
		b.run()
		want, left := 400*time.Millisecond, 7520*time.Millisecond
		if open {
			want, left = 5*time.Second, 2920*time.Millisecond
		}
		if !ok || took < want || took > want+10*time.Millisecond {
			t.Fatalf("connection open %v: acquired=%v after %v, want the lock after %v", open, ok, took, want)
		}
		if d := l.until - took - left; d < -10*time.Millisecond || d > 10*time.Millisecond {
			t.Fatalf("connection open %v: validity left %v, want about %v", open, l.until-took, left)
		}
	}
}

// A master that is down refuses each dial: go-redis dials 5 times 100 ms
// apart, so the try's 400 ms deadline ends the attempt, not a timeout;
// the other four masters make the quorum.
func TestRedlockRefusedMasterEndsAtTheDeadline(t *testing.T) {
	nodes := []string{"redis-1", "redis-2", "redis-3", "redis-4", "redis-5"}
	b := newBench(t, "redlock", nodes...)
	b.w.At(0, func() { b.w.Node("redis-5").Crash(-1) })
	var ok bool
	var took time.Duration
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		ok, _ = b.lock("op").Acquire(th)
		took = th.Monotonic()
	})
	tr := b.run()
	if n := count(tr, "SET", "op"); n != 4 || !ok || took < 400*time.Millisecond || took > 450*time.Millisecond {
		t.Fatalf("acquired=%v after %v with %d commands run: want 4 SETs and the lock at the 400 ms deadline", ok, took, n)
	}
}
