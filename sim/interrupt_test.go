package sim

import (
	"testing"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// TestInterruptedCallStillRunsAndItsCallbackFires: a thread interrupted
// while its command is in flight gets ErrInterrupted at once; the command
// still runs on the node and its future's callback runs on the reply.
func TestInterruptedCallStillRunsAndItsCallbackFires(t *testing.T) {
	w := New(Config{Seed: 1, Network: NetworkConfig{LatencyMin: 10 * time.Millisecond, LatencyMax: 10 * time.Millisecond}})
	w.AddNode("redis")
	p := w.AddProcess("c1")
	var gotErr error
	var returnedAt, callbackAt time.Duration
	var callbackReply Reply
	p.Go("t1", func(th *Thread) {
		_, gotErr = th.CallThen(ClientConfig{Timeout: time.Second}, "redis", func(r Reply, err error) {
			callbackAt, callbackReply = th.World().Now(), r
		}, "SET", "k", "v")
		returnedAt = th.World().Now()
		if !th.IsInterrupted() && gotErr == ErrInterrupted {
			return // the JDK clears the status when it throws
		}
		t.Error("interrupt status still set after ErrInterrupted")
	})
	// A reply in flight does not keep the run alive (a client's event
	// loop is a daemon); another thread does.
	w.AddProcess("c2").Go("t1", func(th *Thread) { th.Sleep(50 * time.Millisecond) })
	if err := w.Inject(trace.Fault{Kind: trace.FaultInterrupt, Target: "c1", AtMs: 5}); err != nil {
		t.Fatal(err)
	}
	tr, err := w.Run()
	if err != nil {
		t.Fatal(err)
	}
	if gotErr != ErrInterrupted || returnedAt != 5*time.Millisecond {
		t.Fatalf("call returned %v at %v, want ErrInterrupted at 5ms", gotErr, returnedAt)
	}
	if callbackAt != 20*time.Millisecond || callbackReply.Str != "OK" {
		t.Fatalf("callback at %v with %+v, want the reply at 20ms", callbackAt, callbackReply)
	}
	if v, _ := w.Node("redis").Miniredis().Get("k"); v != "v" {
		t.Fatalf("the interrupted command did not run: k=%q", v)
	}
	cited := false
	for _, e := range tr.Events {
		cited = cited || trace.CitesFault(e, trace.FaultInterrupt)
	}
	if !cited {
		t.Fatal("no event cites the interrupt")
	}
}

// TestCallWithInterruptStatusSet: a call made with the status set sends
// its command and returns ErrInterrupted at once; a plain call's late
// reply is dropped and its request marked late.
func TestCallWithInterruptStatusSet(t *testing.T) {
	w := New(Config{Seed: 1, Network: NetworkConfig{LatencyMin: 10 * time.Millisecond, LatencyMax: 10 * time.Millisecond}})
	w.AddNode("redis")
	var errs []error
	w.AddProcess("c1").Go("t1", func(th *Thread) {
		th.Interrupt()
		_, err := th.Call("redis", "SET", "k", "v")
		errs = append(errs, err)
		_, err = th.Call("redis", "GET", "k")
		errs = append(errs, err)
	})
	tr, err := w.Run()
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != 2 || errs[0] != ErrInterrupted || errs[1] != nil {
		t.Fatalf("errors %v, want ErrInterrupted then nil", errs)
	}
	late := 0
	for _, e := range tr.Events {
		if e.Kind == trace.EvLate {
			late++
		}
	}
	if late != 1 {
		t.Fatalf("%d late requests, want the interrupted SET", late)
	}
}
