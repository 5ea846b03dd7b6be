package sim

import (
	"time"

	"github.com/alicebob/miniredis/v2/server"
	"github.com/locksim/locksim/sim/trace"
)

// Persistence modes of a node's restart.
const (
	PersistNone     = "none"     // restarts empty
	PersistEverysec = "everysec" // AOF fsync every second: loses up to the last second
	PersistAlways   = "always"   // AOF fsync on every write: loses nothing
)

// Crash stops the node: requests to it are refused at once (ErrRefused),
// connections, subscriptions, WAITs and undelivered replication close.
// With downFor >= 0 it restarts that much later with its persistence mode.
func (n *Node) Crash(downFor time.Duration) { n.crash(downFor, 0) }

// crash is Crash by the scheduled fault id: the restart, and a failover
// the crash leads to, carry it too.
func (n *Node) crash(downFor time.Duration, fault int) {
	if n.down {
		return
	}
	n.advance()
	n.down, n.downBy = true, fault
	n.w.rec.event(trace.NodeCrash(n.Name, downFor).WithFault(fault))
	n.peers = map[int]*server.Peer{}
	n.tx = nil // made again on the next MULTI
	for ch, subs := range n.subs {
		for _, s := range subs {
			s.active = false
		}
		delete(n.subs, ch)
	}
	for _, wt := range n.waiters {
		wt.done = true
	}
	n.waiters = nil
	for _, l := range n.links {
		l.queue = nil
	}
	if downFor >= 0 {
		n.w.schedule(n.w.now+downFor, nil, n.restart)
	}
	for _, fn := range n.w.onNodeCrash {
		fn(n.Name)
	}
}

// Down reports whether the node is crashed.
func (n *Node) Down() bool { return n.down }

// CrashedBy is the scheduled fault of the node's last crash (0: none):
// what a refused request or a reset after its restart traces back to.
func (n *Node) CrashedBy() int { return n.downBy }

func (n *Node) restart() {
	if !n.down {
		return
	}
	n.advance()
	var snap []keyState
	switch n.Persistence {
	case PersistAlways:
		snap = n.snapshot()
	case PersistEverysec:
		snap = n.fsynced
	}
	lost := n.load(snap)
	n.down = false
	mode := n.Persistence
	if mode == "" {
		mode = PersistNone
	}
	n.w.rec.event(trace.NodeStart(n.Name, "persistence "+mode).WithFault(n.downBy))
	for _, k := range lost {
		n.w.rec.event(trace.Lost(trace.EvNodeStart, n.Name, k, "not persisted ("+mode+")").WithFault(n.downBy))
	}
	// A master that restarts keeps its replicas: they resynchronise from
	// it and lose what it lost.
	if n.role == roleMaster {
		for _, l := range n.links {
			l.queue = nil
			n.resync(l, n.downBy)
		}
	}
	n.scheduleTick()
}

// resync gives the replica of l a full copy of its master; fault is the
// scheduled fault that led to it.
func (n *Node) resync(l *replLink, fault int) {
	lost := l.to.load(n.snapshot())
	l.to.offset = n.offset
	l.acked = n.offset
	for _, k := range lost {
		n.w.rec.event(trace.Lost(trace.EvReplicate, l.to.Name, k, "full resync from "+n.Name).WithFault(fault))
	}
	l.to.scheduleTick()
}

// StartFsync snapshots the node every second of its clock (AOF everysec).
func (n *Node) StartFsync() {
	var tick func()
	tick = func() {
		if !n.down {
			n.fsynced = n.snapshot()
		}
		n.w.schedule(n.w.now+time.Second, nil, tick)
	}
	n.w.schedule(n.w.now, nil, tick)
}

// jumpClock moves the node's clock by d (negative: back), by the
// scheduled fault id. Keys whose TTL runs out on the way expire now, and
// their expiries carry the id.
func (n *Node) jumpClock(d time.Duration, fault int) {
	n.advance()
	n.Clock.Offset += d
	n.Clock.Jumped += d
	n.w.rec.event(trace.ClockJump(n.Name, d).WithFault(fault))
	n.advanceBy(fault)
	n.scheduleTick()
}

// setDrift changes the node's clock rate without a jump (the scheduled
// fault id).
func (n *Node) setDrift(ppm int64, fault int) {
	n.advance()
	n.Clock = n.Clock.withDrift(n.w.now, ppm)
	n.w.rec.event(trace.ClockDrift(n.Name, ppm).WithFault(fault))
	n.scheduleTick()
}
