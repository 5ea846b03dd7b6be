package bridge_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/bridge"
)

// waitForever ignores its context and waits on a channel nobody sends
// on: a lock blocked outside the simulated Redis.
func waitForever(wake chan struct{}) { <-wake }

// runBlocked runs one bridged call per client; client c2's call runs
// block, the others return at once. It returns Run's error and the
// world's.
func runBlocked(t *testing.T, block func(ctx context.Context)) (left, err error) {
	left = bridge.Run(t, 1, func() {
		w := sim.New(sim.Config{Seed: 1, Network: sim.DefaultNetwork()})
		w.AddNode("redis")
		b, aerr := bridge.Attach(w, bridge.Topology{Kind: bridge.Single, Nodes: []string{"redis"}})
		if aerr != nil {
			err = aerr
			return
		}
		for _, name := range []string{"c1", "c2", "c3"} {
			p := w.AddProcess(name)
			p.Go("t1", func(th *sim.Thread) {
				b.Call(th, func(ctx context.Context, c *bridge.Clients) error {
					if name == "c2" {
						block(ctx)
					}
					return c.Client.Ping(ctx).Err()
				})
			})
		}
		_, err = w.Run()
	})
	return left, err
}

// TestBlockedCallNamed: a call that never returns, not even once its
// context is cancelled at the end of the run, fails the run with one
// line naming its client and where it waits, instead of synctest's
// deadlock panic (which would stop the test binary, failing this test).
func TestBlockedCallNamed(t *testing.T) {
	left, err := runBlocked(t, func(context.Context) { waitForever(make(chan struct{})) })
	var be *bridge.BlockedError
	if !errors.As(err, &be) {
		t.Fatalf("the world's error: %v (Run's: %v), want a *BlockedError", err, left)
	}
	if be.Client != "c2/t1" || be.Call != "bridge_test.waitForever (stuck_test.go:16)" || len(be.Others) != 0 {
		t.Fatalf("got %+v", be)
	}
	want := "client c2/t1 blocked in bridge_test.waitForever (stuck_test.go:16) outside the simulated Redis: "
	if msg := err.Error(); !strings.HasPrefix(msg, want) || strings.Contains(msg, "\n") {
		t.Fatalf("message %q, want one line starting %q", msg, want)
	}
	if left == nil || !strings.Contains(left.Error(), "blocked in bridge_test.waitForever (stuck_test.go:16)") {
		t.Fatalf("Run's error: %v", left)
	}
}

// TestSleepingCallNamed: a call that sleeps in a loop without looking
// at its context is blocked the same way: time passes, it never returns.
func TestSleepingCallNamed(t *testing.T) {
	_, err := runBlocked(t, func(context.Context) {
		for {
			time.Sleep(time.Second)
		}
	})
	if err == nil || !strings.HasPrefix(err.Error(), "client c2/t1 blocked in bridge_test.TestSleepingCallNamed.func1 (stuck_test.go:") {
		t.Fatalf("err: %v", err)
	}
}

// TestLeftoverGoroutineNamed: a goroutine a call started and left
// running past the end of the run is reported by Run, not by a panic.
func TestLeftoverGoroutineNamed(t *testing.T) {
	left, err := runBlocked(t, func(context.Context) {
		go waitForever(make(chan struct{}))
	})
	if err != nil {
		t.Fatalf("the world's error: %v", err)
	}
	want := "a goroutine of the run (1 in all) blocked in bridge_test.waitForever (stuck_test.go:16) outside the simulated Redis"
	if left == nil || !strings.HasPrefix(left.Error(), want) {
		t.Fatalf("Run's error: %v, want %q", left, want)
	}
}
