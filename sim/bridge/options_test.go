package bridge_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/bridge"
	"github.com/locksim/locksim/sim/trace"
)

// withOptions runs fn as c1's call on one node blackholed from t=0 for a
// minute, its clients built with opts.
func withOptions(t *testing.T, opts *redis.Options, fn func(ctx context.Context, c *bridge.Clients) error) {
	t.Helper()
	var err error
	bridge.Run(t, 3, func() {
		w := sim.New(sim.Config{Seed: 3, Network: sim.DefaultNetwork(), Horizon: 5 * time.Minute})
		w.AddNode("redis")
		w.SetMaster("redis")
		var b *bridge.Bridge
		if b, err = bridge.Attach(w, bridge.Topology{Kind: bridge.Single, Nodes: []string{"redis"}, Options: opts}); err != nil {
			return
		}
		w.AddProcess("c1").Go("t1", func(th *sim.Thread) {
			cerr := b.Call(th, func(ctx context.Context, c *bridge.Clients) error {
				if err := c.Client.Ping(ctx).Err(); err != nil { // connect before the blackhole
					return err
				}
				time.Sleep(time.Second)
				return fn(ctx, c)
			})
			if cerr != nil {
				t.Errorf("call: %v", cerr)
			}
		})
		if err = w.Inject(trace.Fault{Kind: trace.FaultBlackhole, Target: "redis", AtMs: 500, DurMs: 60000}); err != nil {
			return
		}
		_, err = w.Run()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The user's ReadTimeout and MaxRetries are go-redis's: a command to a
// node that answers nothing fails after one read timeout of 1 s (virtual
// time), where go-redis's defaults (5 s, 3 retries) take much longer.
func TestOptionsReadTimeoutHonoured(t *testing.T) {
	for _, tc := range []struct {
		opts     *redis.Options
		min, max time.Duration
	}{
		{&redis.Options{ReadTimeout: time.Second, MaxRetries: -1}, time.Second, 2 * time.Second},
		{nil, 5 * time.Second, time.Hour}, // go-redis's defaults: 5 s read timeout, 3 retries
	} {
		var took time.Duration
		var err error
		withOptions(t, tc.opts, func(ctx context.Context, c *bridge.Clients) error {
			start := time.Now()
			err = c.Client.Set(ctx, "k", "v", 0).Err()
			took = time.Since(start)
			return nil
		})
		if (tc.opts != nil && err == nil) || took < tc.min || took > tc.max {
			t.Errorf("options %+v: SET took %v (virtual), err %v; want an error after %v to %v", tc.opts, took, err, tc.min, tc.max)
		}
	}
}

// The user's PoolSize is enforced: with one connection, a second
// command waits for the first (stuck on a node that answers nothing) and
// fails with go-redis's pool timeout after PoolTimeout.
func TestOptionsPoolSizeHonoured(t *testing.T) {
	var second error
	var took time.Duration
	withOptions(t, &redis.Options{PoolSize: 1, PoolTimeout: 2 * time.Second, ReadTimeout: 10 * time.Second, MaxRetries: -1},
		func(ctx context.Context, c *bridge.Clients) error {
			done := make(chan struct{})
			go func() {
				defer close(done)
				c.Client.Get(ctx, "a") // holds the only connection for 10 s
			}()
			time.Sleep(100 * time.Millisecond)
			start := time.Now()
			second = c.Client.Get(ctx, "b").Err()
			took = time.Since(start)
			<-done
			return nil
		})
	if !errors.Is(second, redis.ErrPoolTimeout) || took != 2*time.Second {
		t.Fatalf("second command: %v after %v (virtual), want %v after 2s", second, took, redis.ErrPoolTimeout)
	}
}

// Options the bridge cannot honour are refused, naming the field.
func TestOptionsRefused(t *testing.T) {
	for _, tc := range []struct {
		opts *redis.Options
		want string
	}{
		{&redis.Options{Addr: "localhost:6379"}, "Options.Addr"},
		{&redis.Options{Password: "secret"}, "Options.Password: "},
		{&redis.Options{DB: 2}, "Options.DB"},
		{&redis.Options{Protocol: 3}, "Options.Protocol"},
	} {
		err := bridge.CheckOptions(tc.opts)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.opts, err, tc.want)
		}
	}
}
