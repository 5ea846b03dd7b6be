package sim

import "time"

// sentinelInfoEvery is how often Redis Sentinel sends INFO to each
// replica (sentinel.c: SENTINEL_INFO_PERIOD), which is how it learns a
// replica's master_link_status.
const sentinelInfoEvery = 10 * time.Second

// sentinelView is what the sentinel reports of the current master's
// replicas (SENTINEL REPLICAS): a replica it has not reached for
// DownAfter is s_down, and one whose link to the master was broken at
// its last INFO reports master_link_status:err. Clients that ask the
// sentinel (Redisson's checkSlavesChange, every scanInterval) count the
// other replicas as available. The sentinel's reachability is read from
// the network and the node's state in its monitor round, without
// commands, so runs that never ask add nothing to their trace.
type sentinelView struct {
	seen      map[string]time.Duration // last round at which the sentinel reached the node
	linkErr   map[string]bool          // master_link_status:err at the last INFO
	infoAt    time.Duration            // last INFO round; -1: none yet
	available int                      // replicas neither s_down nor with a broken link
	observed  bool                     // a monitor round has looked
}

// observeReplicas is one monitor round's look at the replicas of the
// current master.
func (w *World) observeReplicas(cfg FailoverConfig) {
	v := &w.sentinel
	if !v.observed {
		v.observed, v.infoAt = true, -1
		v.seen, v.linkErr = map[string]time.Duration{}, map[string]bool{}
	}
	info := v.infoAt < 0 || w.now-v.infoAt >= sentinelInfoEvery
	if info {
		v.infoAt = w.now
	}
	v.available = 0
	for _, l := range w.nodes[w.master].links {
		r := l.to
		reached := !r.down && !w.net.Blocked(Sentinel, r.Name) && !w.net.Blocked(r.Name, Sentinel)
		if _, ok := v.seen[r.Name]; !ok || reached {
			v.seen[r.Name] = w.now
		}
		if reached && info {
			v.linkErr[r.Name] = !l.connected()
		}
		if w.now-v.seen[r.Name] < cfg.DownAfter && !v.linkErr[r.Name] {
			v.available++
		}
	}
}

// AvailableReplicas is how many replicas of the master the sentinel
// reports as available (not s_down, link to the master up); before its
// first round or without a sentinel, every replica of the master.
func (w *World) AvailableReplicas() int {
	if w.sentinel.observed {
		return w.sentinel.available
	}
	if m := w.nodes[w.master]; m != nil {
		return len(m.links)
	}
	return 0
}
