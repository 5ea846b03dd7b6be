package protocols

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// FaultKinds lists the fault kinds the generator knows, in CLI order.
var FaultKinds = []string{
	trace.FaultGCPause, trace.FaultSlowWork, trace.FaultWatchdogStall, trace.FaultPartition,
	trace.FaultReplicationLag, trace.FaultFailover, trace.FaultClockJump, trace.FaultClockDrift,
	trace.FaultClientCrash, trace.FaultNodeRestart, trace.FaultReplyLoss,
}

// GenerateFaults draws an explicit, timed fault schedule from the
// scenario's seed, its fault kinds and intensity. Each kind draws from its
// own stream, so adding a kind does not move the others. Durations are
// drawn at the scale of the lease: shorter faults cannot break a lease.
func GenerateFaults(sc Scenario) ([]trace.Fault, error) {
	intensity := sc.Intensity
	if intensity <= 0 {
		intensity = 1
	}
	g := gen{sc: sc, window: sc.activeWindow().Milliseconds(), lease: sc.LeaseMs}
	var out []trace.Fault
	for _, kind := range sc.FaultKinds {
		g.r = sim.NewStreams(sc.Seed).Get("faults/" + kind)
		n := func(base int) int { return max(1, int(math.Round(intensity*float64(base)))) }
		switch kind {
		case "none":
		case trace.FaultGCPause:
			// Half the pauses are ordinary (10 ms to 1 s); half are at the
			// scale of the lease, the only ones that can outlast it.
			for c := 0; c < sc.Clients; c++ {
				for range n(1 + g.r.IntN(2)) {
					dur := 10 + g.r.Int64N(990)
					if g.r.IntN(2) == 1 {
						dur = g.span(1, 2, 2)
					}
					out = append(out, g.fault(kind, g.sc.Client(c), dur, 0))
				}
			}
		case trace.FaultSlowWork:
			for range n(1) {
				out = append(out, g.fault(kind, g.client(), g.window/2, g.span(1, 1, 3)))
			}
		case trace.FaultWatchdogStall:
			for c := 0; c < sc.Clients; c++ {
				out = append(out, g.fault(kind, g.sc.Client(c), g.span(1, 1, 3), 0))
			}
		case trace.FaultPartition:
			for range n(2) {
				out = append(out, g.partition()...)
			}
		case trace.FaultReplicationLag:
			out = append(out, g.fault(kind, sim.Master, g.window, 500+g.r.Int64N(4500)))
		case trace.FaultFailover:
			// Down long enough for the sentinel to promote a replica, after
			// a stretch of slow replication, so that the master dies with
			// writes its replicas have not received (seed 001's failure).
			down := max(sc.DownAfterMs, 1000)
			f := g.fault(kind, g.node(true), down*2+g.r.Int64N(down*2), 0)
			lag := g.span(1, 1, 4)
			from := max(0, f.AtMs-lag)
			out = append(out, trace.Fault{Kind: trace.FaultReplicationLag, Target: f.Target, AtMs: from,
				DurMs: f.AtMs - from + f.DurMs, Value: lag}, f)
		case trace.FaultClockJump:
			for range n(1) {
				jump := g.span(1, 2, 2)
				if g.r.IntN(4) == 0 {
					jump = -jump
				}
				target := g.node(false)
				if g.r.IntN(3) == 0 {
					target = g.client()
				}
				out = append(out, g.fault(kind, target, 0, jump))
			}
		case trace.FaultClockDrift:
			ppm := 5_000 + g.r.Int64N(195_000) // 0.5 % to 20 % fast
			out = append(out, g.fault(kind, g.node(false), 0, ppm))
		case trace.FaultClientCrash:
			for range n(1) {
				restart := int64(0)
				if g.r.IntN(3) > 0 {
					restart = 1000 + g.r.Int64N(9000)
				}
				out = append(out, g.fault(kind, g.client(), restart, 0))
			}
		case trace.FaultNodeRestart:
			out = append(out, g.fault(kind, g.node(false), 100+g.r.Int64N(4900), 0))
		case trace.FaultReplyLoss:
			for range n(2) {
				out = append(out, g.fault(kind, g.node(true), 1000+g.r.Int64N(4000), 200+g.r.Int64N(801)))
			}
		default:
			return nil, fmt.Errorf("unknown fault kind %q (known: none, %v)", kind, FaultKinds)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].AtMs < out[j].AtMs })
	return out, nil
}

type gen struct {
	sc     Scenario
	r      *rand.Rand
	window int64
	lease  int64
}

func (g gen) fault(kind, target string, dur, value int64) trace.Fault {
	return trace.Fault{Kind: kind, Target: target, AtMs: g.r.Int64N(g.window), DurMs: dur, Value: value}
}

// span draws between lease*lo/div and lease*hi/div... in halves of the
// lease: span(1, 2, 2) is lease/2 to 2*lease.
func (g gen) span(lo, hi, div int64) int64 {
	a := g.lease * lo / div
	b := g.lease * hi
	return a + g.r.Int64N(b-a+1)
}

func (g gen) client() string { return g.sc.Client(g.r.IntN(g.sc.Clients)) }

// node picks a node faults may hit; master prefers the current master.
func (g gen) node(master bool) string {
	nodes := LockNodes(g.sc)
	if g.sc.Topology == TopoReplicated && master {
		return sim.Master
	}
	if g.sc.Topology == TopoReplicated {
		return nodes[0]
	}
	return nodes[g.r.IntN(len(nodes))]
}

// partition cuts a client from the lock's node(s), or in a replicated
// deployment may cut the master from the sentinel and replicas while
// clients still reach it (split brain).
func (g gen) partition() []trace.Fault {
	dur := g.span(1, 2, 4)
	nodes := LockNodes(g.sc)
	if g.sc.Topology == TopoReplicated && g.r.IntN(2) == 0 {
		at := g.r.Int64N(g.window)
		var out []trace.Fault
		for _, other := range append([]string{sim.Sentinel}, nodes[1:]...) {
			out = append(out, trace.Fault{Kind: trace.FaultPartition, Target: MasterNode + "<->" + other, AtMs: at, DurMs: dur})
		}
		return out
	}
	target := g.client() + "<->" + nodes[g.r.IntN(len(nodes))]
	return []trace.Fault{g.fault(trace.FaultPartition, target, dur, 0)}
}
