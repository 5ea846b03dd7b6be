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

// A partition drops the command on an open connection; go-redis gives
// up on its read timeout (3 s), and a dial during the partition gets no
// answer either.
func TestPartitionTimesOut(t *testing.T) {
	cut := trace.Fault{Kind: trace.FaultPartition, Target: "c1<->redis", AtMs: 100, DurMs: 60000}
	var err error
	var took time.Duration
	tr := world(t, bridge.Single, []trace.Fault{cut}, func(b *bridge.Bridge, th *sim.Thread) {
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
	if err == nil || took < 3*time.Second || len(commands(tr)) != 1 {
		t.Fatalf("err %v after %v, %d commands", err, took, len(commands(tr)))
	}
	t.Logf("go-redis gave up after %v: %v", took, err)
}
