package protocols

import (
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// lateAcquireReply delays the replies c1 gets while it sends its acquire,
// so that the first reply lands after the client's 3 s timeout and before
// its resend; it returns the trace and the lock key's value after the
// acquire.
func lateAcquireReply(t *testing.T, protocol string, from, delay time.Duration) (*trace.Trace, sim.Reply) {
	b := newBench(t, protocol)
	b.w.At(from, func() { b.w.Net().SetDelay(MasterNode, "c1", delay) })
	b.w.At(time.Second, func() { b.w.Net().SetDelay(MasterNode, "c1", 0) })
	var after sim.Reply
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		l := b.lock("redisLock")
		if ok, err := l.Acquire(th); !ok {
			t.Errorf("acquire: %v", err)
			return
		}
		after, _ = th.Call(MasterNode, "HGETALL", "redisLock")
	})
	return b.run(), after
}

// Redisson 3.16 cancels a timed-out attempt and resends the lock script
// after retryInterval: a reply arriving in between is not read, and the
// script runs twice, taking a second reentrant hold.
func TestRedissonResendsAfterALateAcquireReply(t *testing.T) {
	tr, hold := lateAcquireReply(t, "redisson", 0, 3500*time.Millisecond)
	if n := count(tr, scriptSHA(tr, redissonLock316)); n != 2 {
		t.Fatalf("the lock script ran %d times, want 2 (the late reply must not cancel the resend)", n)
	}
	if len(hold.Array) != 2 || hold.Array[1].Str != "2" {
		t.Fatalf("hold %v, want a hold count of 2", hold)
	}
}

// go-redis closes a connection whose read timed out (5 s) and retries on
// another after its 10-30 ms backoff: a reply in between is never read.
// (The delay starts once the connection's HELLO was answered, at 1 ms.)
func TestGoRedisRetriesAfterALateObtainReply(t *testing.T) {
	tr, _ := lateAcquireReply(t, "redislock-go", 1500*time.Microsecond, 5004*time.Millisecond)
	if n := count(tr, scriptSHA(tr, redislockObtain)); n != 2 {
		t.Fatalf("obtain.lua ran %d times, want 2", n)
	}
}

// RFencedLock and newer RLock acquire with syncedEvalNoRetry: on a
// single server a reply that misses the 3 s timeout is not resent.
func TestNewerRedissonAcquireIsNotRetried(t *testing.T) {
	for _, tc := range []struct{ protocol, script string }{
		{"fenced", redissonFencedLock}, {"redisson-latest", redissonLockLatest}} {
		b := newBench(t, tc.protocol)
		b.w.At(0, func() { b.w.Net().SetDelay(MasterNode, "c1", 3500*time.Millisecond) })
		b.w.At(time.Second, func() { b.w.Net().SetDelay(MasterNode, "c1", 0) })
		var err error
		b.proc("c1").Go("t1", func(th *sim.Thread) { _, err = b.lock("redisLock").Acquire(th) })
		tr := b.run()
		if err != sim.ErrTimeout {
			t.Fatalf("%s: acquire error %v, want a timeout", tc.protocol, err)
		}
		if n := count(tr, scriptSHA(tr, tc.script)); n != 1 {
			t.Fatalf("%s: the lock script ran %d times, want 1", tc.protocol, n)
		}
	}
}
