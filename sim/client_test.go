package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

func TestPublishReachesSubscriberThroughNetwork(t *testing.T) {
	w := New(Config{Seed: 4, Network: DefaultNetwork()})
	w.AddNode("redis")
	var got []string
	waiter := w.AddProcess("c1")
	waiter.Go("main", func(th *Thread) {
		sem := th.Process().Sem("latch", 0)
		if _, err := th.Subscribe("redis", "ch", func(msg string) { got = append(got, msg); sem.Release(1) }); err != nil {
			t.Error(err)
		}
		if !sem.Acquire(th, 5*time.Second) {
			t.Error("not woken by the message")
		}
	})
	w.AddProcess("c2").Go("main", func(th *Thread) {
		th.Sleep(100 * time.Millisecond)
		r, _ := th.Call("redis", "EVAL", "return redis.call('publish', KEYS[1], ARGV[1])", "1", "ch", "0")
		if r.Int != 1 {
			t.Errorf("publish from Lua reached %v subscribers, want 1", r)
		}
	})
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "0" {
		t.Fatalf("got %v", got)
	}
}

func TestSemTimeoutAndFIFO(t *testing.T) {
	w := New(Config{Seed: 5})
	p := w.AddProcess("c1")
	var order []string
	for _, name := range []string{"a", "b"} {
		name := name
		p.Go(name, func(th *Thread) {
			if th.Process().Sem("s", 0).Acquire(th, time.Second) {
				order = append(order, name)
			}
		})
	}
	p.Go("c", func(th *Thread) {
		if th.Process().Sem("s", 0).Acquire(th, 10*time.Millisecond) {
			t.Error("c should time out")
		}
		th.Sleep(50 * time.Millisecond)
		th.Process().Sem("s", 0).Release(2)
	})
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if len(order) != 2 || order[0] != "a" || order[1] != "b" {
		t.Fatalf("order %v", order)
	}
}

func TestLostReplyIsRetriedAndRunsTwice(t *testing.T) {
	w := New(Config{Seed: 6, Network: DefaultNetwork()})
	w.AddNode("redis")
	p := w.AddProcess("c1")
	p.Client = ClientConfig{Timeout: 3 * time.Second, Retries: 3, RetryInterval: 1500 * time.Millisecond}
	w.At(0, func() { w.Net().Block("redis", "c1") })
	w.At(2*time.Second, func() { w.Net().Unblock("redis", "c1") })
	var r Reply
	var err error
	p.Go("main", func(th *Thread) { r, err = th.Call("redis", "INCR", "n") })
	tr, runErr := w.Run()
	if runErr != nil {
		t.Fatal(runErr)
	}
	if err != nil || r.Int != 2 {
		t.Fatalf("reply %v err %v, want the retry's reply 2 (the command ran twice)", r, err)
	}
	var retries, drops int
	for _, e := range tr.Events {
		switch e.Kind {
		case trace.EvRetry:
			retries++
		case trace.EvDrop:
			drops++
		}
	}
	if retries != 1 || drops != 1 {
		t.Fatalf("retries %d drops %d", retries, drops)
	}
}

func TestCrashUnwindsAndRestartsAsNewInstance(t *testing.T) {
	w := New(Config{Seed: 7, Network: DefaultNetwork()})
	w.AddNode("redis")
	p := w.AddProcess("c1")
	var finallyRan bool
	var booted []string
	p.SetBoot(func(p *Process) {
		booted = append(booted, p.Name)
		p.Go("main", func(th *Thread) {
			defer func() {
				// A crashed process runs no more commands, even from finally.
				if _, err := th.Call("redis", "DEL", "lock"); err == nil {
					finallyRan = true
				}
			}()
			th.Call("redis", "SET", "lock", th.Process().Name)
			th.Sleep(time.Hour)
		})
	})
	p.SetBoot(p.boot)
	p.boot(p)
	w.At(time.Second, func() { p.Crash(2 * time.Second) })
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if finallyRan {
		t.Fatal("finally block ran a command after the crash")
	}
	if len(booted) != 2 || booted[1] != "c1#2" {
		t.Fatalf("booted %v", booted)
	}
}

func TestRetryFollowsTheNewMaster(t *testing.T) {
	w := New(Config{Seed: 8, Network: DefaultNetwork()})
	a, b := w.AddNode("a"), w.AddNode("b")
	w.SetMaster("a")
	p := w.AddProcess("c1")
	p.Client = ClientConfig{Timeout: time.Second, Retries: 2, RetryInterval: 100 * time.Millisecond}
	var r Reply
	p.Go("main", func(th *Thread) { r, _ = th.Call(Master, "SET", "k", "v") })
	w.At(0, func() { a.Crash(-1) })
	// a refuses at once: the retries, 100 ms apart, follow the master.
	w.At(150*time.Millisecond, func() { w.SetMaster("b") })
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if r.Str != "OK" || !b.Miniredis().Exists("k") {
		t.Fatalf("retry went to %v; b has k: %v", r, b.Miniredis().Exists("k"))
	}
}

func TestCallWithOverridesRetries(t *testing.T) {
	w := New(Config{Seed: 9, Network: DefaultNetwork()})
	n := w.AddNode("a")
	p := w.AddProcess("c1")
	p.Client = ClientConfig{Timeout: 100 * time.Millisecond, Retries: 3, RetryInterval: 10 * time.Millisecond}
	var err error
	p.Go("main", func(th *Thread) { _, err = th.CallWith(ClientConfig{Timeout: 100 * time.Millisecond}, "a", "PING") })
	w.At(0, func() { n.Crash(-1) })
	tr, runErr := w.Run()
	if runErr != nil || err != ErrRefused {
		t.Fatal(runErr, err)
	}
	if find(tr, trace.EvRetry, "") != nil {
		t.Fatal("CallWith without retries retried")
	}
}

func TestMonotonicIgnoresJumps(t *testing.T) {
	w := New(Config{Seed: 10})
	p := w.AddProcess("c1")
	var wall, mono time.Duration
	p.Go("main", func(th *Thread) {
		w0, m0 := th.Now(), th.Monotonic()
		th.Sleep(time.Second)
		wall, mono = th.Now()-w0, th.Monotonic()-m0
	})
	w.Inject(trace.Fault{Kind: trace.FaultClockJump, Target: "c1", AtMs: 500, Value: 60_000})
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if wall != 61*time.Second || mono != time.Second {
		t.Fatalf("wall %v mono %v", wall, mono)
	}
}

// lateReplyRun sends one INCR whose reply is held 3.5 s on the way back:
// it arrives after the 3 s timeout and before the 1.5 s retry delay ends.
func lateReplyRun(t *testing.T, cancel bool) (Reply, *trace.Trace) {
	w := New(Config{Seed: 11, Network: DefaultNetwork()})
	w.AddNode("redis")
	p := w.AddProcess("c1")
	p.Client = ClientConfig{Timeout: 3 * time.Second, Retries: 3, RetryInterval: 1500 * time.Millisecond, CancelOnTimeout: cancel}
	w.At(0, func() { w.Net().SetDelay("redis", "c1", 3500*time.Millisecond) })
	w.At(time.Second, func() { w.Net().SetDelay("redis", "c1", 0) })
	var r Reply
	var err error
	p.Go("main", func(th *Thread) { r, err = th.Call("redis", "INCR", "n") })
	tr, runErr := w.Run()
	if runErr != nil || err != nil {
		t.Fatal(runErr, err)
	}
	return r, tr
}

func TestLateReplyDoesNotCancelRedissonResend(t *testing.T) {
	r, tr := lateReplyRun(t, true)
	if r.Int != 2 {
		t.Fatalf("reply %v, want the resend's 2: the late reply must not complete the call", r)
	}
	dropped := false
	for _, e := range tr.Events {
		dropped = dropped || e.Kind == trace.EvDrop && strings.HasPrefix(e.Detail, "late reply")
	}
	if find(tr, trace.EvRetry, "") == nil || !dropped {
		t.Fatal("no retry, or the late reply was not dropped")
	}
}

func TestLateReplyCompletesCallWithoutCancelOnTimeout(t *testing.T) {
	r, _ := lateReplyRun(t, false)
	if r.Int != 1 {
		t.Fatalf("reply %v, want the late first reply 1 (no resend)", r)
	}
}

func TestEqualJitterRetryDelay(t *testing.T) {
	w := New(Config{Seed: 12})
	p := w.AddProcess("c1")
	cfg := ClientConfig{RetryInterval: time.Second, RetryMax: 2 * time.Second}
	p.Go("main", func(th *Thread) {
		for n, want := range [][2]time.Duration{{500 * time.Millisecond, time.Second}, {time.Second, 2 * time.Second}, {time.Second, 2 * time.Second}} {
			for i := 0; i < 50; i++ {
				if d := th.RetryDelay(cfg, n); d < want[0] || d > want[1] {
					t.Errorf("attempt %d: delay %v outside [%v, %v]", n, d, want[0], want[1])
				}
			}
		}
		if d := th.RetryDelay(ClientConfig{RetryInterval: 8 * time.Millisecond}, 5); d != 8*time.Millisecond {
			t.Errorf("fixed delay %v", d)
		}
	})
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
}
