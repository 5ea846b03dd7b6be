package sim

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

const ms = time.Millisecond

// find returns the first event of kind (and key, when given).
func find(tr *trace.Trace, kind, key string) *trace.Event {
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.Kind == kind && (key == "" || e.Key == key) {
			return e
		}
	}
	return nil
}

func replicated(t *testing.T, seed uint64, lag time.Duration) (*World, *Node, *Node) {
	t.Helper()
	w := New(Config{Seed: seed, Network: DefaultNetwork(), CommandTimeout: 500 * ms})
	m := w.AddNode("redis")
	w.SetMaster("redis")
	w.SetReplication(ReplicationConfig{LagMin: lag, LagMax: lag})
	r := w.AddNode("redis-r1")
	w.AddReplica(m, r)
	w.StartSentinel(FailoverConfig{PingEvery: 200 * ms, DownAfter: time.Second, DiscoveryMax: 100 * ms})
	return w, m, r
}

func TestFailoverLosesUnreplicatedKey(t *testing.T) {
	w, m, _ := replicated(t, 1, 2*time.Second)
	var after Reply
	w.AddProcess("c1").Go("main", func(th *Thread) {
		th.Call(Master, "SET", "lock", "c1", "PX", "30000", "NX")
		th.Sleep(5 * time.Second)
		after, _ = th.Call(Master, "GET", "lock")
	})
	w.At(500*ms, func() { m.Crash(-1) })
	tr, err := w.Run()
	if err != nil {
		t.Fatal(err)
	}
	lost := find(tr, trace.EvPromote, "lock")
	if lost == nil || lost.Change != trace.KeyLost || lost.Party != "redis-r1" {
		t.Fatalf("no lost key on promotion: %+v", lost)
	}
	if !after.IsNil() {
		t.Fatalf("GET on the new master = %v, want nil", after)
	}
	if find(tr, trace.EvDiscover, "") == nil {
		t.Fatal("client never learned the new master")
	}
}

func TestFailoverWithReplicatedKeyLosesNothing(t *testing.T) {
	w, m, _ := replicated(t, 2, ms)
	var after Reply
	w.AddProcess("c1").Go("main", func(th *Thread) {
		th.Call(Master, "SET", "lock", "c1", "PX", "30000", "NX")
		th.Sleep(5 * time.Second)
		after, _ = th.Call(Master, "GET", "lock")
	})
	w.At(500*ms, func() { m.Crash(-1) })
	tr, err := w.Run()
	if err != nil {
		t.Fatal(err)
	}
	if find(tr, trace.EvPromote, "") == nil || find(tr, trace.EvPromote, "lock") != nil {
		t.Fatal("want a promotion that lost nothing")
	}
	if after.Str != "c1" {
		t.Fatalf("GET on the new master = %v", after)
	}
}

func TestSplitBrainOldMasterLosesWritesOnRejoin(t *testing.T) {
	w, _, _ := replicated(t, 3, ms)
	// The master is cut from the sentinel and its replica; c1 still reaches it.
	for _, other := range []string{Sentinel, "redis-r1"} {
		w.Inject(trace.Fault{Kind: trace.FaultPartition, Target: "redis<->" + other, AtMs: 100, DurMs: 3000})
	}
	w.AddProcess("c1").Go("main", func(th *Thread) {
		th.Sleep(time.Second)
		th.Call("redis", "SET", "written-to-old-master", "x")
		th.Sleep(5 * time.Second)
	})
	tr, err := w.Run()
	if err != nil {
		t.Fatal(err)
	}
	if find(tr, trace.EvPromote, "") == nil {
		t.Fatal("no promotion")
	}
	lost := find(tr, trace.EvDemote, "written-to-old-master")
	if lost == nil || lost.Change != trace.KeyLost {
		t.Fatal("the old master's write should be discarded when it rejoins")
	}
}

func TestClockJumpExpiresKeyEarly(t *testing.T) {
	w := New(Config{Seed: 4, Network: DefaultNetwork()})
	n := w.AddNode("redis")
	w.AddProcess("c1").Go("main", func(th *Thread) {
		th.Call("redis", "SET", "lock", "c1", "PX", "10000")
		th.Sleep(2 * time.Second)
	})
	w.Inject(trace.Fault{Kind: trace.FaultClockJump, Target: "redis", AtMs: 1000, Value: 9500})
	tr, err := w.Run()
	if err != nil {
		t.Fatal(err)
	}
	exp := find(tr, trace.EvExpire, "lock")
	if exp == nil || exp.T != int64(time.Second) {
		t.Fatalf("want expiry at the jump (1 s), got %+v", exp)
	}
	if n.Clock.Offset != 9500*ms {
		t.Fatal("offset not applied")
	}
}

func TestClockDriftShortensTTL(t *testing.T) {
	w := New(Config{Seed: 5, Network: DefaultNetwork()})
	w.AddNode("redis")
	w.AddProcess("c1").Go("main", func(th *Thread) {
		th.Call("redis", "SET", "lock", "c1", "PX", "10000")
		th.Sleep(20 * time.Second)
	})
	w.Inject(trace.Fault{Kind: trace.FaultClockDrift, Target: "redis", AtMs: 0, Value: 1_000_000}) // twice as fast
	tr, err := w.Run()
	if err != nil {
		t.Fatal(err)
	}
	exp := find(tr, trace.EvExpire, "lock")
	if exp == nil || time.Duration(exp.T) > 5100*ms || time.Duration(exp.T) < 4900*ms {
		t.Fatalf("want expiry near 5 s of true time, got %+v", exp)
	}
}

func TestPartitionDropsMessages(t *testing.T) {
	w := New(Config{Seed: 6, Network: DefaultNetwork(), CommandTimeout: 300 * ms})
	w.AddNode("redis")
	var err1, err2 error
	w.AddProcess("c1").Go("main", func(th *Thread) {
		_, err1 = th.Call("redis", "PING")
		th.Sleep(time.Second)
		_, err2 = th.Call("redis", "PING")
	})
	w.Inject(trace.Fault{Kind: trace.FaultPartition, Target: "c1->redis", AtMs: 0, DurMs: 500})
	tr, err := w.Run()
	if err != nil {
		t.Fatal(err)
	}
	if err1 != ErrTimeout || err2 != nil {
		t.Fatalf("errs %v %v", err1, err2)
	}
	if find(tr, trace.EvDrop, "") == nil || find(tr, trace.EvPartition, "") == nil || find(tr, trace.EvHeal, "") == nil {
		t.Fatal("partition not in the trace")
	}
}

func TestNodeRestartPersistence(t *testing.T) {
	for _, c := range []struct {
		mode         string
		keepA, keepB bool
	}{
		{PersistNone, false, false},
		{PersistEverysec, true, false}, // b was written after the last fsync
		{PersistAlways, true, true},
	} {
		w := New(Config{Seed: 7, Network: DefaultNetwork(), CommandTimeout: 300 * ms})
		n := w.AddNode("redis")
		n.Persistence = c.mode
		if c.mode == PersistEverysec {
			n.StartFsync()
		}
		var a, b Reply
		w.AddProcess("c1").Go("main", func(th *Thread) {
			th.Sleep(100 * ms)
			th.Call("redis", "SET", "a", "1")
			th.Sleep(1400 * ms)
			th.Call("redis", "SET", "b", "2")
			th.Sleep(2 * time.Second)
			a, _ = th.Call("redis", "GET", "a")
			b, _ = th.Call("redis", "GET", "b")
		})
		w.Inject(trace.Fault{Kind: trace.FaultNodeRestart, Target: "redis", AtMs: 1700, DurMs: 500})
		tr, err := w.Run()
		if err != nil {
			t.Fatal(err)
		}
		if (a.Str == "1") != c.keepA || (b.Str == "2") != c.keepB {
			t.Errorf("%s: a=%v b=%v", c.mode, a, b)
		}
		if lostB := find(tr, trace.EvNodeStart, "b"); (lostB != nil) == c.keepB {
			t.Errorf("%s: lost-b event %+v", c.mode, lostB)
		}
	}
}

func TestReplicationLagAndWait(t *testing.T) {
	w, _, r := replicated(t, 8, 300*ms)
	var fast, slow Reply
	var seenEarly bool
	w.AddProcess("c1").Go("main", func(th *Thread) {
		th.Call(Master, "SET", "k", "v")
		slow, _ = th.Call(Master, "WAIT", "1", "100")
		seenEarly = r.Miniredis().Exists("k")
		fast, _ = th.Call(Master, "WAIT", "1", "1000")
	})
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if slow.Int != 0 || seenEarly || fast.Int != 1 {
		t.Fatalf("WAIT with 100 ms timeout = %v (replica had it: %v), with 1 s = %v", slow, seenEarly, fast)
	}
}

func TestReplicaRejectsWrites(t *testing.T) {
	w, _, _ := replicated(t, 9, ms)
	var r Reply
	w.AddProcess("c1").Go("main", func(th *Thread) { r, _ = th.Call("redis-r1", "SET", "k", "v") })
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if !r.IsErr() {
		t.Fatalf("write to replica = %v", r)
	}
}

func TestWatchdogStallHoldsOnlyBackgroundThreads(t *testing.T) {
	w := New(Config{Seed: 10})
	p := w.AddProcess("c1")
	var ticks []time.Duration
	var mainDone time.Duration
	p.Go("main", func(th *Thread) {
		th.Go("watchdog", func(th *Thread) {
			for {
				th.Sleep(time.Second)
				ticks = append(ticks, th.World().Now())
			}
		})
		th.Sleep(2500 * ms)
		mainDone = th.World().Now()
		th.Sleep(5 * time.Second)
	})
	w.Inject(trace.Fault{Kind: trace.FaultWatchdogStall, Target: "c1", AtMs: 1500, DurMs: 3000})
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if mainDone != 2500*ms {
		t.Fatalf("main thread delayed to %v", mainDone)
	}
	// Ticks at 1 s, then the 2 s tick is held until 4.5 s.
	if len(ticks) < 3 || ticks[0] != time.Second || ticks[1] != 4500*ms {
		t.Fatalf("ticks %v", ticks)
	}
}

func TestReplyLossTimesOut(t *testing.T) {
	w := New(Config{Seed: 11, Network: DefaultNetwork(), CommandTimeout: 200 * ms})
	w.AddNode("redis")
	var errs []error
	w.AddProcess("c1").Go("main", func(th *Thread) {
		_, e := th.Call("redis", "INCR", "n")
		errs = append(errs, e)
		th.Sleep(time.Second)
		r, e := th.Call("redis", "INCR", "n")
		errs = append(errs, e)
		if r.Int != 2 {
			t.Errorf("the lost reply's INCR still ran: want 2, got %v", r)
		}
	})
	w.Inject(trace.Fault{Kind: trace.FaultReplyLoss, Target: "redis", AtMs: 0, DurMs: 500, Value: 1000})
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if errs[0] != ErrTimeout || errs[1] != nil {
		t.Fatalf("errs %v", errs)
	}
}

func TestSlowWorkRaisesProcessSlowness(t *testing.T) {
	w := New(Config{Seed: 12})
	p := w.AddProcess("c1")
	var during, after time.Duration
	p.Go("main", func(th *Thread) {
		th.Sleep(time.Second)
		during = th.Process().SlowWork
		th.Sleep(2 * time.Second)
		after = th.Process().SlowWork
	})
	w.Inject(trace.Fault{Kind: trace.FaultSlowWork, Target: "c1", AtMs: 500, DurMs: 1000, Value: 20000})
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if during != 20*time.Second || after != 0 {
		t.Fatalf("slow work %v then %v", during, after)
	}
}

func TestBadFaultsAreErrors(t *testing.T) {
	w := New(Config{Seed: 13})
	w.AddNode("redis")
	w.AddProcess("c1")
	for _, f := range []trace.Fault{
		{Kind: "meteor", Target: "c1"},
		{Kind: trace.FaultGCPause, Target: "nobody"},
		{Kind: trace.FaultPartition, Target: "c1->nobody"},
		{Kind: trace.FaultNodeRestart, Target: "c1"},
		{Kind: trace.FaultGCPause, Target: "c1", AtMs: -1},
	} {
		if err := w.Inject(f); err == nil {
			t.Errorf("%+v accepted", f)
		}
	}
}

// A long TTL on a drifting node used to overflow the conversion to true
// time and hang the run.
func TestLongTTLOnDriftingNodeEnds(t *testing.T) {
	w := New(Config{Seed: 14, Network: DefaultNetwork(), Horizon: 4 * time.Hour})
	w.AddNode("redis")
	w.Inject(trace.Fault{Kind: trace.FaultClockDrift, Target: "redis", AtMs: 0, Value: 1000})
	w.AddProcess("c1").Go("main", func(th *Thread) {
		th.Call("redis", "SET", "k", "v", "EX", "10800")
		th.Sleep(4 * time.Hour)
	})
	done := make(chan error, 1)
	go func() { _, err := w.Run(); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not end")
	}
}

func TestInfoReplicationCountsConnectedSlaves(t *testing.T) {
	w, _, r := replicated(t, 13, 10*ms)
	var before, after, replica Reply
	w.AddProcess("c1").Go("main", func(th *Thread) {
		before, _ = th.Call("redis", "INFO", "replication")
		replica, _ = th.Call("redis-r1", "INFO", "ALL")
		th.Sleep(2 * time.Second)
		after, _ = th.Call("redis", "INFO", "replication")
	})
	w.At(time.Second, func() { r.Crash(-1) })
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(before.Str, "connected_slaves:1") || !strings.Contains(after.Str, "connected_slaves:0") {
		t.Fatalf("INFO before %q, after the replica crashed %q", before.Str, after.Str)
	}
	if !strings.Contains(replica.Str, "role:slave") {
		t.Fatalf("replica INFO %q", replica.Str)
	}
}

// A delete on the master that had not replicated when the master died
// leaves the key on the promoted replica: the promotion records it.
func TestFailoverRecordsRevivedKey(t *testing.T) {
	w, m, _ := replicated(t, 4, ms)
	var after Reply
	w.AddProcess("c1").Go("main", func(th *Thread) {
		th.Call(Master, "SET", "lock", "c1", "PX", "30000", "NX")
		th.Sleep(100 * ms)
		w.SetReplication(ReplicationConfig{LagMin: 2 * time.Second, LagMax: 2 * time.Second})
		th.Call(Master, "DEL", "lock")
		th.Sleep(5 * time.Second)
		after, _ = th.Call(Master, "GET", "lock")
	})
	w.At(500*ms, func() { m.Crash(-1) })
	tr, err := w.Run()
	if err != nil {
		t.Fatal(err)
	}
	back := find(tr, trace.EvPromote, "lock")
	if back == nil || back.Change != trace.KeyRevived || back.Party != "redis-r1" {
		t.Fatalf("no revived key on promotion: %+v", back)
	}
	if after.Str != "c1" {
		t.Fatalf("GET on the new master = %v, want the revived c1", after)
	}
}

// A rival's key on the master that had not replicated when the master
// died, over an older owner's key the replica still holds: the promotion
// records the rival's as lost and the older one as revived, with its value.
func TestFailoverRevivesAnOlderVersion(t *testing.T) {
	w, m, _ := replicated(t, 4, ms)
	w.AddProcess("c1").Go("main", func(th *Thread) {
		th.Call(Master, "SET", "lock", "c1", "PX", "30000", "NX")
		th.Sleep(100 * ms)
		w.SetReplication(ReplicationConfig{LagMin: 2 * time.Second, LagMax: 2 * time.Second})
		th.Call(Master, "DEL", "lock")
		th.Call(Master, "SET", "lock", "c2", "PX", "30000", "NX")
		th.Sleep(5 * time.Second)
		th.Call(Master, "GET", "lock")
	})
	w.At(500*ms, func() { m.Crash(-1) })
	tr, err := w.Run()
	if err != nil {
		t.Fatal(err)
	}
	var lost, back bool
	for _, e := range tr.Events {
		if e.Kind != trace.EvPromote || e.Key != "lock" {
			continue
		}
		lost = lost || e.Change == trace.KeyLost
		back = back || e.Change == trace.KeyRevived && slices.Equal(e.Args, []string{"c1"})
	}
	if !lost || !back {
		t.Fatalf("promotion: lost %v, revived c1 %v", lost, back)
	}
}

// TestTimedOutMultiDoesNotHoldOverTheConnection: a MULTI whose reply was
// lost ran on the node; the client drops that connection on the timeout
// (as Jedis and go-redis do), so its next command runs on a new one
// instead of being queued in the old transaction.
func TestTimedOutMultiDoesNotHoldOverTheConnection(t *testing.T) {
	w := New(Config{Seed: 11, Network: DefaultNetwork(), CommandTimeout: 200 * ms})
	w.AddNode("redis")
	var got []Reply
	var errs []error
	w.AddProcess("c1").Go("main", func(th *Thread) {
		_, e := th.Call("redis", "MULTI")
		errs = append(errs, e)
		th.Sleep(time.Second)
		r, e := th.Call("redis", "SET", "k", "v")
		got, errs = append(got, r), append(errs, e)
		r, e = th.Call("redis", "GET", "k")
		got, errs = append(got, r), append(errs, e)
	})
	w.Inject(trace.Fault{Kind: trace.FaultReplyLoss, Target: "redis", AtMs: 0, DurMs: 500, Value: 1000})
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if errs[0] != ErrTimeout || errs[1] != nil || errs[2] != nil {
		t.Fatalf("errs %v", errs)
	}
	if got[0].Str != "OK" || got[1].Str != "v" {
		t.Fatalf("after the timed-out MULTI: SET %+v, GET %+v; want OK and v", got[0], got[1])
	}
}
