package bridge_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/bridge"
	"github.com/locksim/locksim/sim/trace"
)

// world is a small deployment for fault tests: one node, or a master, a
// replica and the sentinel.
func world(t *testing.T, kind bridge.Kind, faults []trace.Fault, thread func(b *bridge.Bridge, th *sim.Thread)) *trace.Trace {
	t.Helper()
	var tr *trace.Trace
	var err error
	bridge.Run(t, 3, func() {
		w := sim.New(sim.Config{Seed: 3, Network: sim.DefaultNetwork(), Horizon: time.Minute})
		nodes := []string{"redis"}
		m := w.AddNode("redis")
		w.SetMaster("redis")
		if kind == bridge.Sentinel {
			r := w.AddNode("redis-r1")
			w.AddReplica(m, r)
			w.StartSentinel(sim.FailoverConfig{PingEvery: time.Second, DownAfter: 2 * time.Second})
			nodes = append(nodes, r.Name)
		}
		var b *bridge.Bridge
		if b, err = bridge.Attach(w, bridge.Topology{Kind: kind, Nodes: nodes}); err != nil {
			return
		}
		w.AddProcess("c1").Go("t1", func(th *sim.Thread) { thread(b, th) })
		for _, f := range faults {
			if err = w.Inject(f); err != nil {
				return
			}
		}
		tr, err = w.Run()
	})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// commands lists the node commands of the trace as "party args".
func commands(tr *trace.Trace) []trace.Event {
	var out []trace.Event
	for _, e := range tr.Events {
		if e.Kind == trace.EvCommand && len(e.Args) > 0 && strings.EqualFold(e.Args[0], "set") {
			out = append(out, e)
		}
	}
	return out
}

func set(key string) func(ctx context.Context, c *bridge.Clients) error {
	return func(ctx context.Context, c *bridge.Clients) error { return c.Client.Set(ctx, key, "v", 0).Err() }
}

// A gc-pause holds what the process sends: a command written during the
// pause reaches the node after it.
func TestGCPauseHoldsRequests(t *testing.T) {
	pause := trace.Fault{Kind: trace.FaultGCPause, Target: "c1", AtMs: 50, DurMs: 2000}
	tr := world(t, bridge.Single, []trace.Fault{pause}, func(b *bridge.Bridge, th *sim.Thread) {
		b.Call(th, func(ctx context.Context, c *bridge.Clients) error {
			time.Sleep(100 * time.Millisecond) // the library's own timer runs on
			return set("k")(ctx, c)
		})
	})
	cmds := commands(tr)
	if len(cmds) != 1 || cmds[0].T < int64(2050*time.Millisecond) {
		t.Fatalf("SET during the pause: %+v", cmds)
	}
}

// A client crash cancels the process's calls and resets its connections:
// nothing more reaches the node, and every goroutine returns.
func TestClientCrashCancelsCalls(t *testing.T) {
	crash := trace.Fault{Kind: trace.FaultClientCrash, Target: "c1", AtMs: 500}
	var err error
	tr := world(t, bridge.Single, []trace.Fault{crash}, func(b *bridge.Bridge, th *sim.Thread) {
		err = b.Call(th, func(ctx context.Context, c *bridge.Clients) error {
			for {
				if err := set("k")(ctx, c); err != nil {
					return err
				}
				select {
				case <-time.After(100 * time.Millisecond):
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		})
	})
	cmds := commands(tr)
	if len(cmds) < 3 || cmds[len(cmds)-1].T > int64(502*time.Millisecond) {
		t.Fatalf("commands after the crash at 500 ms: %d, last at %v", len(cmds), cmds[len(cmds)-1].T)
	}
	if err != nil {
		t.Fatalf("the crashed thread returned %v: it must never return", err)
	}
}

// go-redis's failover client finds the promoted replica through the
// simulated sentinel.
func TestFailoverClientFollowsSentinel(t *testing.T) {
	failover := trace.Fault{Kind: trace.FaultFailover, Target: "redis", AtMs: 1000, DurMs: 30000}
	tr := world(t, bridge.Sentinel, []trace.Fault{failover}, func(b *bridge.Bridge, th *sim.Thread) {
		b.Call(th, set("before"))
		th.Sleep(10 * time.Second)
		if err := b.Call(th, set("after")); err != nil {
			panic(err)
		}
	})
	cmds := commands(tr)
	if len(cmds) != 2 || cmds[0].Party != "redis" || cmds[1].Party != "redis-r1" {
		t.Fatalf("SETs: %+v", cmds)
	}
	switched := false
	for _, e := range tr.Events {
		switched = switched || (e.Kind == trace.EvCommand && e.Party == sim.Sentinel && strings.Contains(e.Reply, "10.0.0.2"))
	}
	if !switched {
		t.Fatal("the sentinel never named the promoted replica")
	}
}

// A crashed node's host refuses connections at once, and its crash
// closes the connections it had: go-redis gives up on the command after
// its retries (about a second), long before a read timeout. A partition
// or a blackhole drops the command on the open connection and every dial:
// go-redis waits out its read and dial timeouts until the context ends.
func TestDownNodeRefusesAndBlackholeHangs(t *testing.T) {
	for _, tc := range []struct {
		kind string
		want string
		fast bool
	}{{trace.FaultNodeRestart, "connection refused", true}, {trace.FaultBlackhole, "context deadline exceeded", false},
		{trace.FaultPartition, "context deadline exceeded", false}} {
		fault := trace.Fault{Kind: tc.kind, Target: "redis", AtMs: 500, DurMs: 60000}
		if tc.kind == trace.FaultPartition {
			fault.Target = "c1<->redis"
		}
		var err error
		var took time.Duration
		tr := world(t, bridge.Single, []trace.Fault{fault}, func(b *bridge.Bridge, th *sim.Thread) {
			b.Call(th, set("connected"))
			th.Sleep(time.Second)
			start := th.Now()
			err = b.Call(th, func(ctx context.Context, c *bridge.Clients) error {
				ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				defer cancel()
				return set("k")(ctx, c)
			})
			took = th.Now() - start
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) || (took < 3*time.Second) != tc.fast || len(commands(tr)) != 1 {
			t.Fatalf("%s: %v after %v, %d SETs; want %q, fast %v", tc.kind, err, took, len(commands(tr)), tc.want, tc.fast)
		}
		t.Logf("%s: go-redis gave up after %v: %v", tc.kind, took, err)
	}
}

// A node that restarted while its close could not reach the client (a
// partition) resets the old connection on its next command; go-redis
// retries a reset connection on a new one, so the command still runs,
// once, after a second handshake.
func TestRestartedNodeResetsOldConnection(t *testing.T) {
	faults := []trace.Fault{
		{Kind: trace.FaultPartition, Target: "c1<->redis", AtMs: 400, DurMs: 400},
		{Kind: trace.FaultNodeRestart, Target: "redis", AtMs: 500, DurMs: 100},
	}
	var err error
	tr := world(t, bridge.Single, faults, func(b *bridge.Bridge, th *sim.Thread) {
		b.Call(th, set("before"))
		th.Sleep(time.Second)
		err = b.Call(th, set("stale"))
	})
	var reset, hello int64
	for _, e := range tr.Events {
		switch {
		case e.Kind == trace.EvDrop && strings.Contains(e.Detail, "(restarted, reset): SET"):
			reset = e.T
		case e.Kind == trace.EvCommand && strings.EqualFold(e.Args[0], "hello"):
			hello = e.T
		}
	}
	if cmds := commands(tr); err != nil || len(cmds) != 2 || reset == 0 || hello < reset || cmds[1].T < hello {
		t.Fatalf("err %v; SETs %+v; reset at %d, last handshake at %d", err, cmds, reset, hello)
	}
}
