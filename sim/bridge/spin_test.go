package bridge_test

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/bridge"
)

// TestSpinningCallBlocksBeforeCleanup: a call that ignores its context
// and keeps drawing from crypto/rand (a lock retrying with fresh tokens)
// may be woken at the very instant the run's drain ends; it must block
// before the bubble's cleanup puts the seeded source back. Its draws and
// the drain are aligned on 100 ms: under -race, the draw and the cleanup
// raced (sim/bridge.Run) until Run waited for the bubble to block.
func TestSpinningCallBlocksBeforeCleanup(t *testing.T) {
	const tick = 100 * time.Millisecond
	align := func() { time.Sleep(time.Until(time.Now().Truncate(tick).Add(tick))) }
	left := bridge.Run(t, 1, func() {
		w := sim.New(sim.Config{Seed: 1, Network: sim.DefaultNetwork()})
		w.AddNode("redis")
		b, err := bridge.Attach(w, bridge.Topology{Kind: bridge.Single, Nodes: []string{"redis"}})
		if err != nil {
			t.Error(err)
			return
		}
		w.AddProcess("c1").Go("t1", func(th *sim.Thread) {
			b.Call(th, func(context.Context, *bridge.Clients) error {
				align()
				token := make([]byte, 16)
				for {
					rand.Read(token)
					time.Sleep(tick)
				}
			})
		})
		w.Run()
		align() // the drain (a whole hour) ends on a tick of the call
	})
	if left == nil {
		t.Fatal("Run reported no goroutine left running")
	}
}
