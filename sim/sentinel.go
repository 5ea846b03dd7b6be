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
	var stale []string
	p.GoDaemon("monitor", func(t *Thread) {
		lastOK := w.now
		for {
			t.Sleep(cfg.PingEvery)
			if _, err := t.Call(w.master, "PING"); err == nil {
				lastOK = w.now
			} else if w.now-lastOK >= cfg.DownAfter {
				if old := w.master; w.failover(t, cfg) {
					stale = append(stale, old)
				}
				lastOK = w.now
			}
			kept := stale[:0]
			for _, name := range stale {
				if _, err := t.Call(name, "PING"); err == nil && name != w.master {
					w.demote(w.nodes[name], w.nodes[w.master])
				} else {
					kept = append(kept, name)
				}
			}
			stale = kept
		}
	})
}

// failover promotes the best reachable replica of the current master.
func (w *World) failover(t *Thread, cfg FailoverConfig) bool {
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
		w.rec.event(trace.MasterDown(Sentinel, old.Name+" down; no reachable replica to promote"))
		return false
	}
	w.rec.event(trace.MasterDown(Sentinel, old.Name+" down"))
	best.advance()
	old.advance()
	w.rec.event(trace.Promote(best.Name, old.Name, "offset "+itoa64(best.offset)+" of "+itoa64(old.offset)))
	for _, k := range lostKeys(old, best) {
		w.rec.event(trace.Lost(trace.EvPromote, best.Name, k, "not replicated from "+old.Name))
	}
	for _, k := range revivedKeys(old, best) {
		w.rec.event(trace.Revived(best.Name, k, "deleted on "+old.Name+", not replicated"))
	}
	best.role = roleMaster
	best.links = nil
	for _, l := range old.links {
		if l.to != best {
			nl := &replLink{from: best, to: l.to}
			best.links = append(best.links, nl)
			best.resync(nl)
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
			w.rec.event(trace.Discover(p.Name, "now uses "+w.master))
		})
	}
	return true
}

// demote makes an old master a replica of master: its data is replaced by
// a full copy, so writes it accepted after the failover are lost.
func (w *World) demote(old, master *Node) {
	old.advance()
	old.role = roleReplica
	l := &replLink{from: master, to: old}
	master.links = append(master.links, l)
	lost := lostKeys(old, master)
	old.load(master.snapshot())
	old.offset = master.offset
	l.acked = master.offset
	w.rec.event(trace.Demote(old.Name, "rejoined as replica of "+master.Name))
	for _, k := range lost {
		w.rec.event(trace.Lost(trace.EvDemote, old.Name, k, "discarded by full resync from "+master.Name))
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

// revivedKeys lists the keys to holds that from no longer does: a delete
// or an expiry on from that had not reached to.
func revivedKeys(from, to *Node) []string {
	var out []string
	for _, st := range to.snapshot() {
		if from.capture(st.Key).Gone {
			out = append(out, st.Key)
		}
	}
	return out
}
