package protocols

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// chooseTopology picks, when the scenario names none, the topology its
// fault kinds need (a failover needs replicas and a sentinel; a
// partition's split brain too) if the protocol runs on it; else the
// protocol's default.
func (sc *Scenario) chooseTopology(p Protocol) {
	if sc.Topology != "" {
		return
	}
	for _, kind := range sc.FaultKinds {
		if k, ok := trace.LookupKind(kind); ok && k.Topology != "" && slices.Contains(supports(p), k.Topology) {
			sc.Topology = k.Topology
			return
		}
	}
}

// drawSwarm fills every parameter the scenario leaves unset with a draw
// from the seed's "swarm" stream (FoundationDB's buggify, TigerBeetle's
// VOPR, Groce et al.'s swarm testing): each seed tests its own mix. The
// draws are written into the scenario, so it replays without Swarm.
func (sc *Scenario) drawSwarm(p Protocol, wl Workload) {
	// Each parameter has its own stream: pinning one (a flag, or a replay
	// command that prints it) does not move the others' draws.
	streams := sim.NewStreams(sc.Seed)
	r := func(name string) *rand.Rand { return streams.Get("swarm/" + name) }
	pick := func(name string, from ...int64) int64 { return from[r(name).IntN(len(from))] }
	if len(sc.FaultKinds) > 1 && len(sc.Faults) == 0 {
		// A non-empty subset of the allowed kinds.
		var sub []string
		for rk := r("faults"); len(sub) == 0; {
			for _, k := range sc.FaultKinds {
				if rk.IntN(2) == 0 {
					sub = append(sub, k)
				}
			}
		}
		sc.FaultKinds = sub
	}
	if sc.Intensity == 0 {
		sc.Intensity = []float64{0.5, 1, 1, 2, 3}[r("intensity").IntN(5)]
	}
	if sc.Clients == 0 {
		sc.Clients = 2 + r("clients").IntN(4)
	}
	lease := cmp.Or(sc.LeaseMs, p.Lease.Milliseconds())
	if rw := r("work"); sc.WorkMs == 0 {
		switch {
		case p.Renews && slices.Contains(sc.FaultKinds, trace.FaultWatchdogStall) && rw.IntN(4) > 0:
			// A stalled renewal breaks only a hold that outlasts the
			// lease (redisson#5698): three draws in four hold one to
			// two leases (longer ones push lock-set past the horizon).
			sc.WorkMs = lease + 1 + rw.Int64N(lease)
		case rw.IntN(2) == 0:
			sc.WorkMs = 1 + rw.Int64N(max(lease, wl.WorkMs))
		}
	}
	if sc.ThinkMs == 0 {
		sc.ThinkMs = pick("think", 1, 50, 200, 1000)
	}
	if sc.StaggerMs == 0 {
		sc.StaggerMs = pick("stagger", 0, 0, 100, 500, 2000)
	}
	if sc.Arrival == "" {
		sc.Arrival = []string{ArrivalClosed, ArrivalOpen}[r("arrival").IntN(2)]
	}
	if sc.AnchorPct == 0 {
		sc.AnchorPct = int(pick("anchors", -1, 25, 50, 75, 100))
	}
}

// drawSentinel draws, in a swarm or when a failover or a split brain is
// among the faults, the sentinel's down-after (1 to 30 s) and the
// clients' discovery delay. With those faults, down-after is drawn
// together with the holder's time: most draws let a promotion land while
// a hold of WorkMs is still live.
func (sc *Scenario) drawSentinel(wl Workload) {
	promotes := slices.Contains(sc.FaultKinds, trace.FaultFailover) || slices.Contains(sc.FaultKinds, trace.FaultPartition)
	if sc.Topology != TopoReplicated || !sc.Swarm && !promotes {
		return
	}
	int64n := sim.NewStreams(sc.Seed).Get("sentinel").Int64N
	if sc.DiscoveryMs == 0 {
		sc.DiscoveryMs = 100 + int64n(1900)
	}
	if sc.DownAfterMs != 0 {
		return
	}
	sc.DownAfterMs = 1000 + int64n(29_000)
	if !promotes {
		return
	}
	hold := sc.WorkMs
	if hold == 0 {
		hold = wl.WorkMs
	}
	if live := hold - sc.DiscoveryMs - 1000; live > 1000 && int64n(4) > 0 {
		sc.DownAfterMs = 1000 + int64n(live-1000)
	}
}
