package bridge_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/bridge"
	"github.com/locksim/locksim/sim/trace"
)

// unlockScript deletes the key only if it still holds our token.
var unlockScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

// runSingle runs clients that each take a plain go-redis lock twice on one
// node and returns the trace.
func runSingle(t *testing.T, seed uint64, clients int, faults ...trace.Fault) *trace.Trace {
	var tr *trace.Trace
	var err error
	bridge.Run(t, seed, func() {
		w := sim.New(sim.Config{Seed: seed, Network: sim.DefaultNetwork()})
		w.AddNode("redis")
		b, aerr := bridge.Attach(w, bridge.Topology{Kind: bridge.Single, Nodes: []string{"redis"}})
		if aerr != nil {
			err = aerr
			return
		}
		for i := range clients {
			p := w.AddProcess(fmt.Sprintf("c%d", i+1))
			p.Go("t1", func(th *sim.Thread) {
				for n := range 2 {
					token := fmt.Sprintf("%s-%d", p.Name, n)
					id := th.Invoke("acquire", "lock", "")
					err := b.Call(th, func(ctx context.Context, c *bridge.Clients) error {
						for {
							ok, err := c.Client.SetNX(ctx, "lock", token, time.Second).Result()
							if err != nil || ok {
								return err
							}
							select {
							case <-time.After(50 * time.Millisecond):
							case <-ctx.Done():
								return ctx.Err()
							}
						}
					})
					th.Return(id, result(err))
					th.Sleep(100 * time.Millisecond)
					id = th.Invoke("release", "lock", "")
					err = b.Call(th, func(ctx context.Context, c *bridge.Clients) error {
						n, err := unlockScript.Run(ctx, c.Client, []string{"lock"}, token).Int()
						if err == nil && n == 0 {
							return errors.New("not owner")
						}
						return err
					})
					th.Return(id, result(err))
				}
			})
		}
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

func result(err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return "ok"
}

// Three clients take a plain go-redis lock twice each: every operation
// succeeds, the critical sections never overlap, and a rerun gives the
// same trace.
func TestSingleRuns(t *testing.T) {
	tr := runSingle(t, 1, 3)
	if len(tr.Ops) != 12 {
		t.Fatalf("%d operations, want 12", len(tr.Ops))
	}
	held := map[string]bool{}
	var evs []trace.Op
	for _, o := range tr.Ops {
		if o.Result != "ok" {
			t.Fatalf("operation %+v", o)
		}
		evs = append(evs, o)
	}
	slices.SortFunc(evs, func(a, b trace.Op) int { return int(a.Return - b.Return) })
	for _, o := range evs {
		if o.Kind == "acquire" {
			for c := range held {
				t.Fatalf("%s acquired while %s held the lock", o.Client, c)
			}
			held[o.Client] = true
		} else {
			delete(held, o.Client)
		}
	}
	if again := runSingle(t, 1, 3); again.Hash() != tr.Hash() {
		t.Fatal("a rerun of the same seed gave another trace")
	}
}
