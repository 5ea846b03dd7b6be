package sim

import (
	"time"
)

// NetworkConfig is the latency and loss model of every link.
type NetworkConfig struct {
	LatencyMin time.Duration // one-way latency lower bound
	LatencyMax time.Duration // one-way latency upper bound (uniform between)
	LossRate   float64       // probability that a message is lost
}

// DefaultNetwork is a LAN: 0.2 to 1 ms one way, no loss.
var DefaultNetwork = NetworkConfig{LatencyMin: 200 * time.Microsecond, LatencyMax: time.Millisecond}

// Network carries messages between parties (processes, nodes, services)
// with a seeded latency per message, directional partitions, extra delay
// and loss.
type Network struct {
	w       *World
	cfg     NetworkConfig
	blocked map[[2]string]int
	delay   map[[2]string]time.Duration
}

func newNetwork(w *World, cfg NetworkConfig) *Network {
	if cfg.LatencyMax < cfg.LatencyMin {
		cfg.LatencyMax = cfg.LatencyMin
	}
	return &Network{w: w, cfg: cfg, blocked: map[[2]string]int{}, delay: map[[2]string]time.Duration{}}
}

// Block drops every message from -> to until Unblock. Blocks nest.
func (n *Network) Block(from, to string) { n.blocked[[2]string{from, to}]++ }

// Unblock undoes one Block.
func (n *Network) Unblock(from, to string) {
	k := [2]string{from, to}
	if n.blocked[k] > 1 {
		n.blocked[k]--
	} else {
		delete(n.blocked, k)
	}
}

// Blocked reports whether from -> to is partitioned.
func (n *Network) Blocked(from, to string) bool { return n.blocked[[2]string{from, to}] > 0 }

// SetDelay adds d to every message from -> to (0 removes it).
func (n *Network) SetDelay(from, to string, d time.Duration) {
	if d == 0 {
		delete(n.delay, [2]string{from, to})
		return
	}
	n.delay[[2]string{from, to}] = d
}

func (n *Network) latency(from, to string) time.Duration {
	r := n.w.streams.Get("network")
	d := n.cfg.LatencyMin
	if span := n.cfg.LatencyMax - n.cfg.LatencyMin; span > 0 {
		d += time.Duration(r.Int64N(int64(span) + 1))
	}
	return d + n.delay[[2]string{from, to}]
}

// send delivers a message from -> to by running deliver at its arrival.
// target is the receiving process (nil for a node or service), so that a
// paused receiver holds the message. what describes it for drop events.
func (n *Network) send(from, to string, target *Process, what string, deliver func()) {
	lost := false
	if n.cfg.LossRate > 0 {
		lost = n.w.streams.Get("network-loss").Float64() < n.cfg.LossRate
	}
	d := n.latency(from, to)
	if lost || n.Blocked(from, to) {
		n.w.rec.event(Event{Kind: EvDrop, Party: from, Detail: "to " + to + ": " + what})
		return
	}
	n.w.schedule(n.w.now+d, target, func() {
		if n.Blocked(from, to) {
			n.w.rec.event(Event{Kind: EvDrop, Party: from, Detail: "to " + to + ": " + what})
			return
		}
		deliver()
	})
}
