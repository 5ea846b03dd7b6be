package protocols

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// Hand-built worlds: fixed 1 ms one-way latency, so timelines can be
// written down to the millisecond.

var fixedNet = sim.NetworkConfig{LatencyMin: time.Millisecond, LatencyMax: time.Millisecond}

type bench struct {
	t   *testing.T
	w   *sim.World
	env Env
	p   Protocol
}

func newBench(t *testing.T, protocol string, nodes ...string) *bench {
	t.Helper()
	p, err := Lookup(protocol)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) == 0 {
		nodes = []string{MasterNode}
	}
	w := sim.New(sim.Config{Seed: 1, Network: fixedNet, CommandTimeout: 3 * time.Second})
	for _, n := range nodes {
		w.AddNode(n)
	}
	w.SetMaster(nodes[0])
	env := WithState(Env{Master: sim.Master, Nodes: nodes, Data: sim.Master, Lease: p.Lease})
	if len(nodes) > 1 {
		env.Master = nodes[0]
	}
	return &bench{t: t, w: w, env: env, p: p}
}

func (b *bench) proc(name string) *sim.Process {
	p := b.w.AddProcess(name)
	p.Client = b.p.Client
	return p
}

func (b *bench) lock(key string) Lock { return b.p.New(b.env, key) }

func (b *bench) run() *trace.Trace {
	b.t.Helper()
	tr, err := b.w.Run()
	if err != nil {
		b.t.Fatal(err)
	}
	return tr
}

// count counts the commands nodes executed whose arguments contain all of
// parts (script bodies appear as their sha1, see scriptSHA).
func count(tr *trace.Trace, parts ...string) int {
	n := 0
	for _, e := range tr.Events {
		if e.Kind != trace.EvCommand {
			continue
		}
		all := strings.Join(e.Args, " ")
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(all, p)
		}
		if ok {
			n++
		}
	}
	return n
}

// scriptSHA is how the trace names a script.
func scriptSHA(tr *trace.Trace, script string) string {
	for sha, body := range tr.Scripts {
		if body == script {
			return "sha1:" + sha
		}
	}
	return "sha1:never-sent"
}

func notes(tr *trace.Trace, part string) int {
	n := 0
	for _, e := range tr.Events {
		if e.Kind == trace.EvNote && strings.Contains(e.Detail, part) {
			n++
		}
	}
	return n
}

func TestLocalMutexExcludesThreadsNotProcesses(t *testing.T) {
	b := newBench(t, "local-mutex")
	var got []string
	hold := func(p *sim.Process, name string) {
		p.Go(name, func(th *sim.Thread) {
			l := b.lock("trava_nome_x")
			l.Acquire(th)
			got = append(got, th.Client()+"+")
			th.Sleep(time.Second)
			got = append(got, th.Client()+"-")
			l.Release(th)
		})
	}
	c1 := b.proc("c1")
	hold(c1, "t1")
	hold(c1, "t2")
	hold(b.proc("c2"), "t1")
	b.run()
	want := "c1/t1+ c2/t1+ c1/t1- c2/t1- c1/t2+ c1/t2-"
	if s := strings.Join(got, " "); s != want {
		t.Fatalf("order %q, want %q (threads of c1 exclude each other, c2 does not wait)", s, want)
	}
}

// foreignReleaseTimeline: c1 takes the 10 s lock at 0 and starts its
// release at 9.990 s; its commands from the MULTI (or DEL) on are delayed
// 2 s, so they arrive after the key expired (10.001 s) and c2 took it
// (10.501 s).
func foreignReleaseTimeline(t *testing.T, protocol string, delayAt time.Duration) (released bool, c2Key bool) {
	b := newBench(t, protocol)
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		l := b.lock("redisLock")
		if ok, _ := l.Acquire(th); !ok {
			t.Error("c1 did not acquire")
		}
		th.Sleep(9990*time.Millisecond - th.Now())
		released, _ = l.Release(th)
	})
	b.w.At(delayAt, func() { b.w.Net().SetDelay("c1", MasterNode, 2*time.Second) })
	b.proc("c2").Go("t1", func(th *sim.Thread) {
		th.Sleep(10500 * time.Millisecond)
		l := b.lock("redisLock")
		if ok, _ := l.Acquire(th); !ok {
			t.Error("c2 did not acquire after the expiry")
		}
		th.Sleep(5 * time.Second) // past c1's late commands
		r, _ := th.Call(MasterNode, "EXISTS", "redisLock")
		c2Key = r.Int == 1
	})
	b.run()
	return released, c2Key
}

func TestSetnxGetDelDeletesAnotherClientsLock(t *testing.T) {
	// GET at 9.991 s sees c1's token; the DEL (sent 9.992 s) arrives at
	// 11.993 s and deletes c2's key.
	released, c2Key := foreignReleaseTimeline(t, "setnx-get-del", 9991500*time.Microsecond)
	if !released || c2Key {
		t.Fatalf("released=%v c2's key present=%v: want the late DEL to delete c2's lock", released, c2Key)
	}
}

func TestSetnxWatchDelRetriesAndSparesAnotherClientsLock(t *testing.T) {
	// WATCH and GET arrive before the expiry; MULTI/DEL/EXEC arrive after
	// c2 took the key: EXEC returns nil, the loop re-reads, sees c2's
	// token and gives up.
	released, c2Key := foreignReleaseTimeline(t, "setnx-watch-del", 9993500*time.Microsecond)
	if released || !c2Key {
		t.Fatalf("released=%v c2's key present=%v: want the transaction to fail and c2's lock to survive", released, c2Key)
	}
}

func TestSetnxDaemonRenewsAnotherClientsLock(t *testing.T) {
	b := newBench(t, "setnx-daemon-renew")
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		l := b.lock("trava_nome_x")
		l.Acquire(th)
		th.Sleep(time.Second)
		l.Release(th) // DEL; the daemon lives on until it sees -2
	})
	var alive bool
	b.proc("c2").Go("t1", func(th *sim.Thread) {
		th.Sleep(2 * time.Second)
		// c2 takes the key by hand, with no daemon of its own.
		th.Call(MasterNode, "SET", "trava_nome_x", "bloqueado", "EX", "30", "NX")
		th.Sleep(60 * time.Second)
		r, _ := th.Call(MasterNode, "EXISTS", "trava_nome_x")
		alive = r.Int == 1
	})
	tr := b.run()
	if !alive {
		t.Fatal("c2's 30 s key expired: c1's daemon should have kept re-extending it")
	}
	if n := count(tr, "EXPIRE", "trava_nome_x"); n < 2 {
		t.Fatalf("%d EXPIREs from c1's daemon, want at least 2", n)
	}
}

func TestRedissonReentrancyAndWatchdog(t *testing.T) {
	b := newBench(t, "redisson")
	var holds []string
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		l := b.lock("redisLock")
		l2 := b.lock("redisLock") // another RLock object, same thread
		ok1, _ := l.Acquire(th)
		ok2, _ := l2.Acquire(th)
		if !ok1 || !ok2 {
			t.Errorf("reentrant acquisitions %v %v", ok1, ok2)
		}
		r, _ := th.Call(MasterNode, "HGETALL", "redisLock")
		holds = append(holds, r.String())
		th.Sleep(65 * time.Second) // twice the 30 s lease: the watchdog keeps it
		r, _ = th.Call(MasterNode, "EXISTS", "redisLock")
		if r.Int != 1 {
			t.Error("the lock expired although the watchdog was running")
		}
		l2.Release(th)
		r, _ = th.Call(MasterNode, "HGETALL", "redisLock")
		holds = append(holds, r.String())
		l.Release(th)
		r, _ = th.Call(MasterNode, "EXISTS", "redisLock")
		if r.Int != 0 {
			t.Error("the second unlock did not delete the lock")
		}
	})
	tr := b.run()
	if len(holds) != 2 || !strings.HasSuffix(holds[0], `"2"]`) || !strings.HasSuffix(holds[1], `"1"]`) {
		t.Fatalf("hold counts %v, want 2 then 1", holds)
	}
	if n := count(tr, scriptSHA(tr, redissonRenew316)); n < 6 {
		t.Fatalf("%d renewals in 65 s, want one every 10 s", n)
	}
}

func TestRedissonWaiterWokenByPubSubOnePerProcess(t *testing.T) {
	b := newBench(t, "redisson")
	var acquired = map[string]time.Duration{}
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		l := b.lock("redisLock")
		l.Acquire(th)
		th.Sleep(5 * time.Second)
		l.Release(th)
	})
	c2 := b.proc("c2")
	for _, name := range []string{"t1", "t2"} {
		c2.Go(name, func(th *sim.Thread) {
			th.Sleep(100 * time.Millisecond)
			l := b.lock("redisLock")
			if ok, err := l.Acquire(th); !ok {
				t.Errorf("%s: %v", th.Client(), err)
			}
			acquired[th.Client()] = th.Now()
			th.Sleep(2 * time.Second)
			l.Release(th)
		})
	}
	tr := b.run()
	first, second := acquired["c2/t1"], acquired["c2/t2"]
	if first > second {
		first, second = second, first
	}
	// Woken by c1's unlock message at 5 s, not by the 30 s TTL.
	if first < 5*time.Second || first > 5100*time.Millisecond {
		t.Fatalf("first waiter acquired at %v, want just after the unlock at 5 s", first)
	}
	// One permit per message: the other waiter of c2 waits for its
	// sibling's unlock (7 s), not for c1's.
	if second < 7*time.Second || second > 7100*time.Millisecond {
		t.Fatalf("second waiter acquired at %v, want just after its sibling's unlock at 7 s", second)
	}
	if n := count(tr, "SUBSCRIBE", "redisson_lock__channel:{redisLock}"); n != 1 {
		t.Fatalf("%d SUBSCRIBEs, want 1: the process's waiters share one subscription", n)
	}
}

func TestRedissonRenewalReturningZeroStopsTheWatchdog(t *testing.T) {
	for _, protocol := range []string{"redisson-3.16.1", "redisson-latest"} {
		t.Run(protocol, func(t *testing.T) {
			b := newBench(t, protocol)
			b.proc("c1").Go("t1", func(th *sim.Thread) {
				l := b.lock("redisLock")
				l.Acquire(th)
				th.Sleep(60 * time.Second)
				l.Release(th)
			})
			b.proc("admin").Go("t1", func(th *sim.Thread) {
				th.Sleep(5 * time.Second)
				th.Call(MasterNode, "DEL", "redisLock") // the lock is gone before the first renewal
			})
			tr := b.run()
			renew := redissonRenew316
			if protocol == "redisson-latest" {
				renew = redissonRenewLatest
			}
			if n := count(tr, scriptSHA(tr, renew)); n != 1 {
				t.Fatalf("%d renewals, want 1: the renewal that returns 0 cancels the watchdog", n)
			}
			if notes(tr, "renewal cancelled") != 1 {
				t.Fatal("no note of the cancelled renewal")
			}
		})
	}
}

// retriedUnlock: the reply to c1's unlock is lost (redis -> c1 blocked
// from 1 s to 4.1 s); a client with retries times out and resends after
// the first attempt already ran. With replicas, the master has one
// replica whose link works.
func retriedUnlock(t *testing.T, protocol string, replicas bool) (bool, error, *trace.Trace) {
	b := newBench(t, protocol)
	if replicas {
		b.w.AddReplica(b.w.Node(MasterNode), b.w.AddNode("redis-r1"))
	}
	var ok bool
	var err error
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		l := b.lock("redisLock")
		l.Acquire(th)
		th.Sleep(time.Second - th.Now())
		ok, err = l.Release(th)
	})
	b.w.At(999*time.Millisecond, func() { b.w.Net().Block(MasterNode, "c1") })
	b.w.At(4100*time.Millisecond, func() { b.w.Net().Unblock(MasterNode, "c1") })
	return ok, err, b.run()
}

func TestRedissonRetriedUnlockIsIllegalMonitorState(t *testing.T) {
	ok, err, tr := retriedUnlock(t, "redisson", false)
	if ok || err != nil {
		t.Fatalf("unlock ok=%v err=%v: 3.16's retried unlock finds no hold and answers nil", ok, err)
	}
	if notes(tr, "IllegalMonitorStateException") != 1 {
		t.Fatal("no IllegalMonitorStateException note")
	}
	if n := count(tr, scriptSHA(tr, redissonUnlock316)); n != 2 {
		t.Fatalf("the unlock script ran %d times, want 2 (first attempt and retry)", n)
	}
}

// Newer Redisson sends the unlock with syncedEvalNoRetry: on a single
// server a lost reply is a timeout, not a resend.
func TestRedissonLatestUnlockIsNotRetriedOnASingleServer(t *testing.T) {
	ok, err, tr := retriedUnlock(t, "redisson-latest", false)
	if ok || err != sim.ErrTimeout {
		t.Fatalf("unlock ok=%v err=%v, want a timeout", ok, err)
	}
	if n := count(tr, scriptSHA(tr, redissonUnlockLatest)); n != 1 {
		t.Fatalf("the unlock script ran %d times, want 1", n)
	}
}

// With replicas the script and WAIT are one batch, which the batch
// executor resends after its 4000 ms timeout with the same request id:
// the latch answers the resend.
func TestRedissonLatestRetriedUnlockAnsweredByTheLatch(t *testing.T) {
	ok, err, tr := retriedUnlock(t, "redisson-latest", true)
	if !ok || err != nil {
		t.Fatalf("unlock ok=%v err=%v: the retry should read the latch's cached 1", ok, err)
	}
	if n := count(tr, scriptSHA(tr, redissonUnlockLatest)); n != 2 {
		t.Fatalf("the unlock script ran %d times, want 2", n)
	}
	if n := count(tr, "DEL", "redisson_unlock_latch:{redisLock}:"); n != 1 {
		t.Fatalf("%d latch DELs, want 1", n)
	}
	if n := count(tr, "INFO", "ALL"); n != 1 {
		t.Fatalf("%d INFOs, want 1: connected_slaves is read once and cached", n)
	}
}

func TestRedissonTryLockGivesUpAfterItsWait(t *testing.T) {
	b := newBench(t, "redisson-trylock")
	var ok bool
	var at time.Duration
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		l := b.lock("redisLock")
		l.Acquire(th)
		th.Sleep(20 * time.Second)
		l.Release(th)
	})
	b.proc("c2").Go("t1", func(th *sim.Thread) {
		th.Sleep(time.Second)
		ok, _ = b.lock("redisLock").Acquire(th)
		at = th.Now()
	})
	b.run()
	if ok || at < 6*time.Second || at > 6100*time.Millisecond {
		t.Fatalf("tryLock ok=%v at %v, want false after its 5 s wait", ok, at)
	}
}

// TestFencersHandOutIncreasingTokens: a protocol is fenced (its
// overlaps are not unsafe by themselves, its workloads send tokens) only
// if its locks hand out a higher token with each acquisition.
func TestFencersHandOutIncreasingTokens(t *testing.T) {
	n := 0
	for _, p := range Protocols() {
		if !IsFenced(p) {
			continue
		}
		n++
		b := newBench(t, p.Name)
		var tokens []int64
		for _, c := range []string{"c1", "c2", "c3"} {
			b.proc(c).Go("t1", func(th *sim.Thread) {
				l := b.lock("redisLock")
				l.Acquire(th)
				tokens = append(tokens, l.(Fencer).Token())
				th.Sleep(100 * time.Millisecond)
				l.Release(th)
			})
		}
		b.run()
		if len(tokens) != 3 || tokens[0] != 1 || tokens[1] != 2 || tokens[2] != 3 {
			t.Errorf("%s: tokens %v, want 1 2 3", p.Name, tokens)
		}
	}
	if n == 0 {
		t.Fatal("no fenced protocol in the catalog")
	}
}

func TestFencedDatabaseRejectsTheStaleHolder(t *testing.T) {
	// The reference pause: c1 locks, pauses 70 s; its 30 s lease runs out
	// (the watchdog is paused with it); c2 locks with a newer token and
	// inserts; c1 resumes and its INSERT carries the older token.
	_, tr, err := Run(Scenario{Seed: 1, Protocol: "fenced", Workload: "unique-name", Clients: 2, Ops: 1, StaggerMs: 500,
		Faults: []trace.Fault{{Kind: trace.FaultGCPause, Target: "c1", AtMs: 1000, DurMs: 70000}}})
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]string{}
	for _, op := range tr.Ops {
		if op.Kind == model.OpInsert {
			results[op.Client+" token "+op.Value] = op.Result
		}
	}
	if results["c1/t1 token 1"] != model.ResRejected || results["c2/t1 token 2"] != model.ResInserted {
		t.Fatalf("inserts %v, want c1's token 1 rejected and c2's token 2 inserted", results)
	}
}

func TestMultiLockFailingOnTheSecondMasterUnlocksTheFirst(t *testing.T) {
	b := newBench(t, "redisson-multilock", "redis-1", "redis-2", "redis-3")
	var ok bool
	var after []int64
	b.proc("other").Go("t1", func(th *sim.Thread) {
		th.Call("redis-2", "HSET", "op", "someone-else:1", "1")
		th.Call("redis-2", "PEXPIRE", "op", "60000")
	})
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		th.Sleep(10 * time.Millisecond)
		ok, _ = b.lock("op").Acquire(th)
		for _, n := range []string{"redis-1", "redis-2", "redis-3"} {
			r, _ := th.Call(n, "EXISTS", "op")
			after = append(after, r.Int)
		}
	})
	tr := b.run()
	if ok {
		t.Fatal("the multilock was acquired although redis-2 was held")
	}
	if len(after) != 3 || after[0] != 0 || after[1] != 1 || after[2] != 0 {
		t.Fatalf("keys after the failure %v, want redis-1's lock released, redis-2's foreign lock kept, redis-3 never taken", after)
	}
	if n := count(tr, scriptSHA(tr, redissonUnlock316)); n < 1 {
		t.Fatal("the first master's lock was not unlocked")
	}
	if n := count(tr, "redis-3"); n != 0 {
		t.Log("redis-3 was contacted", n)
	}
}

func TestMultiLockSetsTheLeaseOnEveryMaster(t *testing.T) {
	b := newBench(t, "redisson-multilock", "redis-1", "redis-2", "redis-3")
	var ttls []int64
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		l := b.lock("op")
		if ok, err := l.Acquire(th); !ok {
			t.Fatalf("not acquired: %v", err)
		}
		for _, n := range []string{"redis-1", "redis-2", "redis-3"} {
			r, _ := th.Call(n, "PTTL", "op")
			ttls = append(ttls, r.Int)
		}
		l.Release(th)
	})
	b.run()
	for _, ttl := range ttls {
		if ttl < 59_000 || ttl > 60_000 {
			t.Fatalf("TTLs %v, want the 60 s lease on all three", ttls)
		}
	}
}

// pausedAcquisition: c1's SETs reach all five masters (after each
// connection's HELLO round trip, 2 ms), then c1 pauses 9 s (more than the
// 8 s expiry) before it reads the replies.
func pausedAcquisition(t *testing.T, protocol string) (ok bool, held int64) {
	nodes := []string{"redis-1", "redis-2", "redis-3", "redis-4", "redis-5"}
	b := newBench(t, protocol, nodes...)
	c1 := b.proc("c1")
	c1.Go("t1", func(th *sim.Thread) {
		ok, _ = b.lock("op").Acquire(th)
		for _, n := range nodes {
			r, _ := th.Call(n, "EXISTS", "op")
			held += r.Int
		}
	})
	b.w.At(3500*time.Microsecond, func() { c1.Pause(9*time.Second, "gc-pause") })
	b.run()
	return ok, held
}

func TestRedlockRechecksValidityAfterAPause(t *testing.T) {
	ok, held := pausedAcquisition(t, "redlock")
	if !ok || held < 3 {
		t.Fatalf("ok=%v, keys held on %d masters: redlock should drop the stale attempt and lock again", ok, held)
	}
}

func TestRedlockUncheckedBelievesAnExpiredLock(t *testing.T) {
	ok, held := pausedAcquisition(t, "redlock-unchecked")
	if !ok || held != 0 {
		t.Fatalf("ok=%v, keys held on %d masters: the unchecked client should believe it holds a lock whose keys all expired", ok, held)
	}
}

func TestRedlockQuorumAndExtend(t *testing.T) {
	nodes := []string{"redis-1", "redis-2", "redis-3", "redis-4", "redis-5"}
	b := newBench(t, "redlock", nodes...)
	b.proc("other").Go("t1", func(th *sim.Thread) {
		for _, n := range nodes[:2] {
			th.Call(n, "SET", "op", "someone-else", "PX", "60000")
		}
	})
	var ok, extended bool
	var pttl int64
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		th.Sleep(10 * time.Millisecond)
		l := b.lock("op").(*redlock)
		ok, _ = l.Acquire(th) // 3 of 5: a quorum
		th.Sleep(4 * time.Second)
		extended, _ = l.Extend(th)
		r, _ := th.Call("redis-3", "PTTL", "op")
		pttl = r.Int
		l.Release(th)
	})
	b.run()
	if !ok || !extended || pttl < 7900 {
		t.Fatalf("acquired=%v extended=%v pttl=%d: want a quorum of 3 and a fresh 8 s after Extend", ok, extended, pttl)
	}
}

func TestRedislockGoRetriedObtainOverridesItsOwnKey(t *testing.T) {
	for _, c := range []struct {
		protocol string
		want     bool
	}{
		{"redislock-go", true},   // obtain.lua recognises its own token
		{"setnx-lua-del", false}, // SET NX refuses the key its first attempt set
	} {
		t.Run(c.protocol, func(t *testing.T) {
			b := newBench(t, c.protocol)
			p := b.proc("c1")
			p.Client = sim.ClientConfig{Timeout: time.Second, Retries: 1, RetryInterval: 8 * time.Millisecond}
			var ok bool
			p.Go("t1", func(th *sim.Thread) { ok, _ = b.lock("redisLock").Acquire(th) })
			b.w.At(0, func() { b.w.Net().Block(MasterNode, "c1") })
			b.w.At(500*time.Millisecond, func() { b.w.Net().Unblock(MasterNode, "c1") })
			b.run()
			if ok != c.want {
				t.Fatalf("retried acquire ok=%v, want %v", ok, c.want)
			}
		})
	}
}

func TestSpringRegistryLocalLockThenSpin(t *testing.T) {
	b := newBench(t, "spring-registry")
	var order []string
	hold := func(p *sim.Process, name string, start time.Duration) {
		p.Go(name, func(th *sim.Thread) {
			th.Sleep(start)
			l := b.lock("op")
			l.Acquire(th)
			order = append(order, th.Client())
			th.Sleep(time.Second)
			if ok, _ := l.Release(th); !ok {
				t.Errorf("%s: release failed", th.Client())
			}
		})
	}
	c1 := b.proc("c1")
	hold(c1, "t1", 0)
	hold(c1, "t2", 10*time.Millisecond)
	hold(b.proc("c2"), "t1", 20*time.Millisecond)
	tr := b.run()
	// c1/t2 waits on c1's ReentrantLock and, once c1/t1 unlocks, gets in
	// before c2 (spinning every 100 ms) sees the key gone.
	if strings.Join(order, " ") != "c1/t1 c1/t2 c2/t1" {
		t.Fatalf("order %v", order)
	}
	if n := count(tr, scriptSHA(tr, springObtain)); n < 15 {
		t.Fatalf("%d obtain attempts: c2 should spin every 100 ms for 2 s", n)
	}
}

func TestSpringRegistryUnlockAfterExpiryIsConcurrentModification(t *testing.T) {
	b := newBench(t, "spring-registry")
	var ok bool
	b.proc("c1").Go("t1", func(th *sim.Thread) {
		l := b.lock("op")
		l.Acquire(th)
		th.Sleep(61 * time.Second)
		ok, _ = l.Release(th)
	})
	tr := b.run()
	if ok || notes(tr, "ConcurrentModificationException") != 1 {
		t.Fatalf("unlock after the 60 s expiry ok=%v; want a ConcurrentModificationException", ok)
	}
}

func TestLockSetFinalReadHasEveryElement(t *testing.T) {
	_, tr, err := Run(Scenario{Seed: 3, Protocol: "setnx-lua-del", Workload: "lock-set"})
	if err != nil {
		t.Fatal(err)
	}
	var adds []string
	final := ""
	for _, op := range tr.Ops {
		switch op.Kind {
		case model.OpAdd:
			if op.Result == model.ResOK {
				adds = append(adds, op.Value)
			}
		case model.OpRead:
			final = op.Result
		}
	}
	if len(adds) != 30 { // 3 clients x lock-set's 10 operations
		t.Fatalf("%d acknowledged adds, want 30", len(adds))
	}
	for _, a := range adds {
		if !strings.Contains(","+final+",", ","+a+",") {
			t.Fatalf("final read %q lacks %q", final, a)
		}
	}
}

func TestAddElementKeepsTheSetSorted(t *testing.T) {
	s := ""
	for _, e := range []string{"c2/t1#0", "c1/t1#1", "c1/t1#0", "c1/t1#1"} {
		s = addElement(s, e)
	}
	if s != "c1/t1#0,c1/t1#1,c2/t1#0" {
		t.Fatalf("set %q", s)
	}
}

// TestEveryProtocolRunsEveryWorkload runs the catalog once per workload
// without faults: every protocol must acquire and release cleanly on its
// default topology (a release after a failed acquire, which
// stock-interruptibly's finally block makes, may fail).
func TestEveryProtocolRunsEveryWorkload(t *testing.T) {
	for _, p := range Protocols() {
		for _, wl := range Workloads() {
			_, tr, err := Run(Scenario{Seed: 2, Protocol: p.Name, Workload: wl.Name})
			if err != nil {
				t.Fatalf("%s/%s: %v", p.Name, wl.Name, err)
			}
			ok, bad := 0, 0
			held := map[string]bool{}
			for _, op := range tr.Ops {
				if op.Kind == model.OpAcquire {
					held[op.Client] = op.Result == model.ResOK
					if held[op.Client] {
						ok++
					}
				}
				if op.Kind == model.OpRelease && op.Result != model.ResOK && held[op.Client] {
					bad++
				}
			}
			if ok == 0 || bad != 0 {
				t.Errorf("%s/%s: %d acquisitions, %d failed releases", p.Name, wl.Name, ok, bad)
			}
		}
	}
}

// redsync's WithSetNXOnExtend: an Extend after the key expired takes it
// again with SET NX and reports success.
func TestRedlockSetNXExtendRetakesAnExpiredKey(t *testing.T) {
	w := sim.New(sim.Config{Seed: 1, Network: sim.DefaultNetwork(), CommandTimeout: time.Second})
	w.AddNode("redis")
	w.SetMaster("redis")
	p, _ := Lookup("redlock-setnx-extend")
	env := WithState(Env{Master: sim.Master, Nodes: []string{"redis"}, Lease: 8 * time.Second})
	var extended bool
	var owner string
	w.AddProcess("c1").Go("main", func(th *sim.Thread) {
		l := p.New(env, "k").(*redlockKeepAlive)
		if ok, err := l.redlock.Acquire(th); !ok || err != nil {
			t.Fatalf("acquire %v %v", ok, err)
		}
		th.Sleep(9 * time.Second) // the key has expired
		extended, _ = l.Extend(th)
		r, _ := th.Call("redis", "GET", "k")
		owner = r.Str
		if owner != l.value {
			t.Errorf("key holds %q, want the extender's value", owner)
		}
	})
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if !extended {
		t.Fatal("the late extend should report success")
	}
}
