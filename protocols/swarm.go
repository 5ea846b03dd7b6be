package protocols

import (
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
	r := sim.NewStreams(sc.Seed).Get("swarm")
	pick := func(from ...int64) int64 { return from[r.IntN(len(from))] }
	if len(sc.FaultKinds) > 1 && len(sc.Faults) == 0 {
		// A non-empty subset of the allowed kinds.
		var sub []string
		for len(sub) == 0 {
			for _, k := range sc.FaultKinds {
				if r.IntN(2) == 0 {
					sub = append(sub, k)
				}
			}
		}
		sc.FaultKinds = sub
	}
	if sc.Intensity == 0 {
		sc.Intensity = []float64{0.5, 1, 1, 2, 3}[r.IntN(5)]
	}
	if sc.Clients == 0 {
		sc.Clients = 2 + r.IntN(4)
	}
	lease := sc.LeaseMs
	if lease == 0 {
		lease = p.Lease.Milliseconds()
	}
	if sc.WorkMs == 0 && r.IntN(2) == 0 {
		sc.WorkMs = 1 + r.Int64N(max(lease, wl.WorkMs))
	}
	if sc.ThinkMs == 0 {
		sc.ThinkMs = pick(1, 50, 200, 1000)
	}
	if sc.StaggerMs == 0 {
		sc.StaggerMs = pick(0, 0, 100, 500, 2000)
	}
	if sc.Arrival == "" {
		sc.Arrival = []string{ArrivalClosed, ArrivalOpen}[r.IntN(2)]
	}
	if sc.AnchorPct == 0 {
		sc.AnchorPct = int(pick(-1, 25, 50, 75, 100))
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
