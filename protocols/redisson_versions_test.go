package protocols

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// secondHold: c1 holds redisLock while an admin deletes the key at 5 s
// (the renewal at 10 s answers 0), skips the unlock as buy() does when
// isHeldByCurrentThread is false, then locks again at 20 s and holds for
// 60 s. It reports whether the second hold outlived its 30 s lease.
func secondHold(t *testing.T, protocol string) (kept bool, tr *trace.Trace) {
	b := newBench(t, protocol)
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		l := b.lock("redisLock")
		l.Acquire(th)
		th.Sleep(15 * time.Second)
		if held, _ := l.(*rlock).HeldByCurrentThread(th); held {
			t.Error("the deleted lock is still held")
		}
		th.Sleep(5 * time.Second)
		l = b.lock("redisLock")
		if ok, err := l.Acquire(th); !ok {
			t.Errorf("second lock(): %v", err)
			return
		}
		th.Sleep(60 * time.Second)
		r, _ := th.Call(MasterNode, "EXISTS", "redisLock")
		kept = r.Int == 1
	})
	b.proc("admin").Go("t1", func(th *sim.Thread) {
		th.Sleep(5 * time.Second)
		th.Call(MasterNode, "DEL", "redisLock")
	})
	return kept, b.run()
}

func TestRedisson3160StaleEntryLeavesNextHoldWithoutWatchdog(t *testing.T) {
	kept, tr := secondHold(t, "redisson")
	if kept {
		t.Fatal("3.16.0: the second hold outlived its lease: it should have had no watchdog (Redisson #3712)")
	}
	if notes(tr, "the renewal entry stays") != 1 || notes(tr, "watchdog not started") != 1 {
		t.Fatal("no notes of the stale entry and the watchdog that did not start")
	}
	kept, _ = secondHold(t, "redisson-3.16.1")
	if !kept {
		t.Fatal("3.16.1: the second hold expired: its watchdog should have renewed it")
	}
}

// unlockAfterFailedRenewal: c1's connection to Redis is cut from 9 s to
// 28 s, so the renewal at 10 s fails after its retries and the lease
// runs out at 30 s; c1 unlocks at 35 s (nil: IllegalMonitorState), locks
// again and holds 60 s (Redisson #2515's steps).
func unlockAfterFailedRenewal(t *testing.T, protocol string) (kept bool, tr *trace.Trace) {
	b := newBench(t, protocol)
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		l := b.lock("redisLock")
		l.Acquire(th)
		th.Sleep(35 * time.Second)
		if ok, _ := l.Release(th); ok {
			t.Error("unlock of an expired lock succeeded")
		}
		l = b.lock("redisLock")
		if ok, err := l.Acquire(th); !ok {
			t.Errorf("second lock(): %v", err)
			return
		}
		th.Sleep(60 * time.Second)
		r, _ := th.Call(MasterNode, "EXISTS", "redisLock")
		kept = r.Int == 1
	})
	b.w.At(9*time.Second, func() { b.w.Net().Block("c1", MasterNode) })
	b.w.At(28*time.Second, func() { b.w.Net().Unblock("c1", MasterNode) })
	return kept, b.run()
}

func TestRedisson3120FailedRenewalLeavesNextHoldWithoutWatchdog(t *testing.T) {
	kept, tr := unlockAfterFailedRenewal(t, "redisson-3.12.0")
	if kept {
		t.Fatal("3.12.0: the second hold outlived its lease: it should have had no watchdog (Redisson #2515)")
	}
	if notes(tr, "can't update lock expiration") != 1 || notes(tr, "watchdog not started") != 1 {
		t.Fatal("no notes of the failed renewal and the watchdog that did not start")
	}
	for _, fixed := range []string{"redisson", "redisson-3.16.1"} {
		if kept, _ := unlockAfterFailedRenewal(t, fixed); !kept {
			t.Fatalf("%s: the second hold expired: its watchdog should have renewed it", fixed)
		}
	}
}

// replicatedBench is newBench with one replica behind the master whose
// link is cut, so that no WAIT is acknowledged.
func replicatedBench(t *testing.T, protocol string) *bench {
	b := newBench(t, protocol)
	b.w.AddReplica(b.w.Node(MasterNode), b.w.AddNode("redis-r1"))
	b.w.At(0, func() { b.w.Net().Block(MasterNode, "redis-r1") })
	return b
}

func TestRedisson3170TryLockThrowsOnUnsyncedWait(t *testing.T) {
	for _, tc := range []struct {
		protocol string
		fails    bool
	}{{"redisson-trylock", true}, {"redisson", false}} {
		b := replicatedBench(t, tc.protocol)
		var acqErr, relErr error
		var acquired bool
		b.proc("c1").Go("t1", func(th *sim.Thread) {
			l := b.lock("redisLock")
			acquired, acqErr = l.Acquire(th)
			_, relErr = l.Release(th)
		})
		b.run()
		want := "Only 0 of 1 slaves were synced"
		if !tc.fails {
			if acqErr != nil || !acquired || relErr != nil {
				t.Fatalf("%s: acquire %v %v, release %v: 3.16 ignores the WAIT count", tc.protocol, acquired, acqErr, relErr)
			}
			continue
		}
		if acqErr == nil || !strings.Contains(acqErr.Error(), want) {
			t.Fatalf("%s: acquire error %v, want %q", tc.protocol, acqErr, want)
		}
		if relErr == nil || !strings.Contains(relErr.Error(), want) {
			t.Fatalf("%s: release error %v, want %q", tc.protocol, relErr, want)
		}
	}
}

// With the replica cut after the acquire, every unlock attempt's WAIT
// answers 0 and ServiceManager.execute retries unlockAsync0 with the one
// request id unlockAsync drew: the resends read the first attempt's latch.
func TestRedissonLatestUnlockKeepsItsRequestIDAcrossRetries(t *testing.T) {
	b := newBench(t, "redisson-latest")
	b.w.AddReplica(b.w.Node(MasterNode), b.w.AddNode("redis-r1"))
	b.w.At(500*time.Millisecond, func() { b.w.Net().Block(MasterNode, "redis-r1") })
	var err error
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		l := b.lock("redisLock")
		if ok, err := l.Acquire(th); !ok {
			t.Errorf("acquire: %v", err)
			return
		}
		th.Sleep(time.Second)
		_, err = l.Release(th)
	})
	tr := b.run()
	if err != ErrNoSyncedSlaves {
		t.Fatalf("unlock error %v, want %v after the retries", err, ErrNoSyncedSlaves)
	}
	latches := map[string]int{}
	for _, e := range tr.Events {
		for _, a := range e.Args {
			if strings.HasPrefix(a, "redisson_unlock_latch:") && e.Party == MasterNode && e.Args[0] != "DEL" {
				latches[a]++
			}
		}
	}
	if len(latches) != 1 {
		t.Fatalf("unlock attempts used latches %v, want one request id", latches)
	}
	for _, n := range latches {
		if n != 5 {
			t.Fatalf("%d unlock attempts, want 5 (retryAttempts 4)", n)
		}
	}
}

// Newer Redisson waits for connected_slaves (INFO), not for the replicas
// it was configured with: with the only replica down, it sends WAIT 0
// and the acquire succeeds; counting configured replicas would wait for
// one that cannot answer and fail with "None of slaves were synced".
func TestRedissonLatestWaitsForConnectedSlaves(t *testing.T) {
	b := newBench(t, "redisson-latest")
	r := b.w.AddNode("redis-r1")
	b.w.AddReplica(b.w.Node(MasterNode), r)
	b.w.At(0, func() { r.Crash(-1) })
	var ok bool
	var err error
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		th.Sleep(100 * time.Millisecond)
		ok, err = b.lock("redisLock").Acquire(th)
	})
	tr := b.run()
	if !ok || err != nil {
		t.Fatalf("acquire %v %v, want success with WAIT 0", ok, err)
	}
	if count(tr, "WAIT 0 1000") != 1 || count(tr, "WAIT 1 1000") != 0 {
		t.Fatal("the script's WAIT should ask for the 0 connected slaves")
	}
}
