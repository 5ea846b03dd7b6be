package sim

import (
	"strconv"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// Standalone is one Redis node outside any run, for conformance tests and
// benchmarks: commands run at the virtual time set with SetNow.
type Standalone struct {
	w *World
	n *Node
}

// NewStandalone returns a standalone node seeded with seed, running the
// fast paths of scripts (Config.Scripts).
func NewStandalone(seed uint64, scripts ...Script) *Standalone {
	w := New(Config{Seed: seed, Scripts: scripts})
	return &Standalone{w: w, n: w.AddNode("redis")}
}

// SetNow moves the node's true virtual time to d (never backwards); TTLs
// count down by the difference on the node's clock.
func (s *Standalone) SetNow(d time.Duration) {
	if d > s.w.now {
		s.w.now = d
	}
}

// Now is the current virtual time.
func (s *Standalone) Now() time.Duration { return s.w.now }

// Do runs one command on connection conn (each conn has its own
// WATCH/MULTI state) and returns the reply.
func (s *Standalone) Do(conn int, args ...string) Reply {
	return s.n.execConn(conn, "conn"+strconv.Itoa(conn), args)
}

// Node returns the underlying node.
func (s *Standalone) Node() *Node { return s.n }

// Events returns the events recorded so far.
func (s *Standalone) Events() []trace.Event { return s.w.rec.events() }

// Close gives the node's Lua state back to the pool, as a run's end does.
func (s *Standalone) Close() { s.n.lua.Close() }
