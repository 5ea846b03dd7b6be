package sim

import (
	"slices"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// FailoverConfig is how the failover controller works, in the way Redis
// Sentinel does (one sentinel, so no quorum).
type FailoverConfig struct {
	PingEvery    time.Duration // how often the master is pinged
	DownAfter    time.Duration // no reply this long: the master is down
	DiscoveryMax time.Duration // clients learn the new master within this
}

// Sentinel is the name of the failover controller's process.
const Sentinel = "sentinel"

// StartSentinel starts the failover controller. It pings the master; after
// DownAfter without a reply it promotes the most up-to-date reachable
// replica, and clients switch to it after a random discovery delay. An old
// master that answers again is demoted to a replica of the new one and
// loses what it accepted in the meantime.
func (w *World) StartSentinel(cfg FailoverConfig) {
	p := w.AddProcess(Sentinel)
	p.Client = ClientConfig{Timeout: cfg.PingEvery / 2}
	var stale []replaced
	p.GoDaemon("monitor", func(t *Thread) {
		lastOK := w.now
		for {
			t.Sleep(cfg.PingEvery)
			if _, err := t.Call(w.master, "PING"); err == nil {
				lastOK = w.now
			} else if w.now-lastOK >= cfg.DownAfter {
				old := replaced{w.master, w.unreachableBy(w.master)}
				if w.failover(t, cfg, old.fault) {
					stale = append(stale, old)
				}
				lastOK = w.now
			}
			kept := stale[:0]
			for _, r := range stale {
				if _, err := t.Call(r.name, "PING"); err == nil && r.name != w.master {
					w.demote(w.nodes[r.name], w.nodes[w.master], r.fault)
				} else {
					kept = append(kept, r)
				}
			}
			stale = kept
			w.observeReplicas(cfg)
		}
	})
}

// replaced is an old master a failover replaced, and the scheduled fault
// that made it unreachable (0: none known).
type replaced struct {
	name  string
	fault int
}

// unreachableBy names the scheduled fault that keeps the sentinel from
// node: its crash, a partition or blackhole between them, or a loss of
// its replies; 0 if none.
func (w *World) unreachableBy(node string) int {
	if n := w.nodes[node]; n != nil && n.down {
		return n.downBy
	}
	if id := w.net.blocker(Sentinel, node); id > 0 {
		return id
	}
	if id := w.net.blocker(node, Sentinel); id > 0 {
		return id
	}
	return w.net.lossFrom[node].fault
}

// failover promotes the best reachable replica of the current master;
// its events carry fault, the scheduled fault that brought it about.
func (w *World) failover(t *Thread, cfg FailoverConfig, fault int) bool {
	old := w.nodes[w.master]
	var best *Node
	for _, l := range old.links {
		r := l.to
		if r.down {
			continue
		}
		if _, err := t.Call(r.Name, "PING"); err != nil {
			continue
		}
		if best == nil || r.offset > best.offset || (r.offset == best.offset && r.Name < best.Name) {
			best = r
		}
	}
	if best == nil {
		w.rec.event(trace.MasterDown(Sentinel, old.Name+" down; no reachable replica to promote").WithFault(fault))
		return false
	}
	w.rec.event(trace.MasterDown(Sentinel, old.Name+" down").WithFault(fault))
	best.advance()
	old.advance()
	w.rec.event(trace.Promote(best.Name, old.Name, "offset "+itoa64(best.offset)+" of "+itoa64(old.offset)).WithFault(fault))
	for _, k := range lostKeys(old, best) {
		w.rec.event(trace.Lost(trace.EvPromote, best.Name, k, "not replicated from "+old.Name).WithFault(fault))
	}
	for _, r := range revivedKeys(old, best) {
		w.rec.event(trace.Revived(best.Name, r.Key, r.value(), r.why+old.Name+", not replicated").WithFault(fault))
	}
	best.role = roleMaster
	best.links = nil
	for _, l := range old.links {
		if l.to != best {
			nl := &replLink{from: best, to: l.to}
			best.links = append(best.links, nl)
			best.resync(nl, fault)
		}
	}
	old.links = nil
	prev := w.master
	w.master = best.Name
	for _, fn := range w.onPromote {
		fn(prev, best.Name)
	}
	r := w.streams.Get("discovery")
	for _, p := range w.procs {
		if p.Name == Sentinel || p.crashed || p.OwnDiscovery {
			continue
		}
		if p.view == "" {
			p.view = prev
		}
		p := p
		delay := time.Duration(0)
		if cfg.DiscoveryMax > 0 {
			delay = time.Duration(r.Int64N(int64(cfg.DiscoveryMax) + 1))
		}
		w.schedule(w.now+delay, nil, func() {
			if p.crashed {
				return
			}
			p.view = ""
			w.rec.event(trace.Discover(p.Name, "now uses "+w.master).WithFault(fault))
		})
	}
	return true
}

// demote makes an old master a replica of master: its data is replaced by
// a full copy, so writes it accepted after the failover are lost. fault is
// the scheduled fault behind the failover.
func (w *World) demote(old, master *Node, fault int) {
	old.advance()
	old.role = roleReplica
	l := &replLink{from: master, to: old}
	master.links = append(master.links, l)
	lost := lostKeys(old, master)
	old.load(master.snapshot())
	old.offset = master.offset
	l.acked = master.offset
	w.rec.event(trace.Demote(old.Name, "rejoined as replica of "+master.Name).WithFault(fault))
	for _, k := range lost {
		w.rec.event(trace.Lost(trace.EvDemote, old.Name, k, "discarded by full resync from "+master.Name).WithFault(fault))
	}
	old.scheduleTick()
}

// lostKeys lists the keys of from that to lacks or holds with another value.
func lostKeys(from, to *Node) []string {
	var out []string
	for _, st := range from.snapshot() {
		o := to.capture(st.Key)
		if o.Gone || o.Type != st.Type || o.Str != st.Str || !slices.Equal(o.Fields, st.Fields) {
			out = append(out, st.Key)
		}
	}
	return out
}

// revived is a key a promoted replica holds in a version its master
// no longer had, and why.
type revived struct {
	keyState
	why string
}

// revivedKeys lists the keys to holds that from no longer does: a delete
// or an expiry on from that had not reached to, or a newer version on
// from (a rival's key) that to never received.
func revivedKeys(from, to *Node) []revived {
	var out []revived
	for _, st := range to.snapshot() {
		switch o := from.capture(st.Key); {
		case o.Gone:
			out = append(out, revived{st, "deleted on "})
		case o.Type != st.Type || o.Str != st.Str || !slices.Equal(o.Fields, st.Fields):
			out = append(out, revived{st, "an older version; the newer one on "})
		}
	}
	return out
}
