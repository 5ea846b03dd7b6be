package protocols

import (
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// redsync waits for every master, and go-redis does not let the try's
// 400 ms deadline cut a read short: with one master's replies lost, Lock
// returns after the 5 s read timeout, holding the other four, and its
// validity is what is left of the 8 s.
func TestRedlockWaitsOutGoRedisReadTimeout(t *testing.T) {
	nodes := []string{"redis-1", "redis-2", "redis-3", "redis-4", "redis-5"}
	b := newBench(t, "redlock", nodes...)
	b.w.At(0, func() { b.w.Net().Block("redis-5", "c1") })
	var ok bool
	var took time.Duration
	var l *redlock
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		l = b.lock("op").(*redlock)
		ok, _ = l.Acquire(th)
		took = th.Monotonic()
	})
	b.run()
	if !ok || took < 5*time.Second || took > 5100*time.Millisecond {
		t.Fatalf("acquired=%v after %v: want the lock after go-redis's 5 s read timeout", ok, took)
	}
	if left := l.until - took; left > 3*time.Second || left < 2800*time.Millisecond {
		t.Fatalf("validity left %v, want 8 s - 5 s - 80 ms of drift", left)
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
	if n := count(tr); n != 4 || !ok || took < 400*time.Millisecond || took > 450*time.Millisecond {
		t.Fatalf("acquired=%v after %v with %d commands run: want 4 SETs and the lock at the 400 ms deadline", ok, took, n)
	}
}
