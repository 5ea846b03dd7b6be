package sim

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// NetworkConfig is the latency and loss model of every link.
type NetworkConfig struct {
	LatencyMin time.Duration `json:"latency_min_ns"` // one-way latency lower bound
	LatencyMax time.Duration `json:"latency_max_ns"` // one-way latency upper bound (uniform between)
	LossRate   float64       `json:"loss_rate"`      // probability that a message is lost
}

// DefaultNetwork is a LAN: 0.2 to 1 ms one way, no loss.
func DefaultNetwork() NetworkConfig {
	return NetworkConfig{LatencyMin: 200 * time.Microsecond, LatencyMax: time.Millisecond}
}

// Network carries messages between parties (processes, nodes, services)
// with a seeded latency per message, directional partitions, extra delay
// and loss.
type Network struct {
	w        *World
	cfg      NetworkConfig
	blocked  map[[2]string][]int // the faults blocking a link (0: a Block call), oldest first
	delay    map[[2]string]time.Duration
	lossFrom map[string]loss
	rng      *rand.Rand // the "network" stream, looked up once
}

// loss is a party's reply-loss rate and the fault that set it.
type loss struct {
	rate  float64
	fault int
}

func newNetwork(w *World, cfg NetworkConfig) *Network {
	if cfg.LatencyMax < cfg.LatencyMin {
		cfg.LatencyMax = cfg.LatencyMin
	}
	return &Network{w: w, cfg: cfg, blocked: map[[2]string][]int{}, delay: map[[2]string]time.Duration{},
		lossFrom: map[string]loss{}}
}

// Block drops every message from -> to until Unblock. Blocks nest.
func (n *Network) Block(from, to string) { n.block(from, to, 0) }

// Unblock undoes one Block.
func (n *Network) Unblock(from, to string) { n.unblock(from, to, 0) }

// block is Block by the scheduled fault id.
func (n *Network) block(from, to string, fault int) {
	k := [2]string{from, to}
	n.blocked[k] = append(n.blocked[k], fault)
}

// unblock undoes one block by fault.
func (n *Network) unblock(from, to string, fault int) {
	k := [2]string{from, to}
	ids := n.blocked[k]
	if i := slices.Index(ids, fault); i >= 0 {
		ids = slices.Delete(ids, i, i+1)
	}
	if len(ids) == 0 {
		delete(n.blocked, k)
		return
	}
	n.blocked[k] = ids
}

// Blocked reports whether from -> to is partitioned.
func (n *Network) Blocked(from, to string) bool {
	return len(n.blocked) > 0 && len(n.blocked[[2]string{from, to}]) > 0
}

// blocker is the oldest scheduled fault blocking from -> to (0: none).
func (n *Network) blocker(from, to string) int {
	for _, id := range n.blocked[[2]string{from, to}] {
		if id > 0 {
			return id
		}
	}
	return 0
}

// SetDelay adds d to every message from -> to (0 removes it).
func (n *Network) SetDelay(from, to string, d time.Duration) {
	if d == 0 {
		delete(n.delay, [2]string{from, to})
		return
	}
	n.delay[[2]string{from, to}] = d
}

func (n *Network) latency(from, to string) time.Duration {
	if n.rng == nil {
		n.rng = n.w.streams.Get("network")
	}
	d := n.cfg.LatencyMin
	if span := n.cfg.LatencyMax - n.cfg.LatencyMin; span > 0 {
		d += time.Duration(n.rng.Int64N(int64(span) + 1))
	}
	if len(n.delay) > 0 {
		d += n.delay[[2]string{from, to}]
	}
	return d
}

// send delivers a message from -> to by running deliver at its arrival.
// target is the receiving process (nil for a node or service), so that a
// paused receiver holds the message. what describes it for drop events.
func (n *Network) send(from, to string, target *Process, what string, deliver func()) {
	e := n.w.alloc.event()
	e.proc, e.ref = target, deliver
	n.post(from, to, e, what)
}

// sendRequest carries attempt a of a round trip to its party.
func (n *Network) sendRequest(a *rpcAttempt) {
	e := n.w.alloc.event()
	e.do, e.ref = doArrive, a
	n.post(a.c.t.p.Name, a.party, e, a.c.what)
}

// sendReply carries the answer to attempt a back to its thread, which
// waits for it: held while its process is paused or the thread is a
// stalled background thread.
func (n *Network) sendReply(a *rpcAttempt) {
	t := a.c.t
	e := n.w.alloc.event()
	e.proc, e.thr, e.do, e.ref = t.p, t, doDeliver, a
	e.reply = true
	n.post(a.party, t.p.Name, e, a.c.what)
}

func (n *Network) post(from, to string, e *event, what string) {
	lost := false
	if n.cfg.LossRate > 0 {
		lost = n.w.streams.Get("network-loss").Float64() < n.cfg.LossRate
	}
	fault := 0
	if len(n.lossFrom) > 0 {
		if l := n.lossFrom[from]; l.rate > 0 && n.w.streams.Get("reply-loss").Float64() < l.rate {
			lost, fault = true, l.fault
		}
	}
	d := n.latency(from, to)
	if lost || n.Blocked(from, to) {
		if !lost {
			fault = n.blocker(from, to)
		}
		n.w.rec.event(trace.Drop(from, dropDetail(to, what, e.reply)).WithFault(fault))
		return
	}
	// A request in flight to a node or service keeps the run alive: a
	// delayed write still lands after its sender has finished.
	e.msg = message{from: from, to: to, what: what}
	e.inflight, e.sent = e.proc == nil, true
	if e.inflight {
		n.w.live++
	}
	e.at = n.w.now + d
	n.w.scheduleEvent(e)
}

// arrive delivers the message e carries, unless a partition that began
// while it was in flight drops it.
func (n *Network) arrive(e *event) {
	m := &e.msg
	if e.inflight {
		n.w.live--
	}
	if n.Blocked(m.from, m.to) {
		n.w.rec.event(trace.Drop(m.from, dropDetail(m.to, m.what, e.reply)).WithFault(n.blocker(m.from, m.to)))
		return
	}
	e.run(n.w)
}

// dropDetail describes a lost message: the request what, or the reply to it.
func dropDetail(to, what string, reply bool) string {
	if reply {
		return "to " + to + ": reply to " + what
	}
	return "to " + to + ": " + what
}

// SetLossFrom drops messages sent by party with probability rate (0 stops).
func (n *Network) SetLossFrom(party string, rate float64) { n.setLossFrom(party, rate, 0) }

// setLossFrom is SetLossFrom by the scheduled fault id.
func (n *Network) setLossFrom(party string, rate float64, fault int) {
	if rate <= 0 {
		delete(n.lossFrom, party)
		return
	}
	n.lossFrom[party] = loss{rate, fault}
}
