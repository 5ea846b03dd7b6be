package protocols

import (
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// The generators of the process faults.

// genPause: half the random-time pauses are ordinary (10 ms to 1 s), half
// at the scale of the lease, the only ones that can outlast it; an
// anchored pause starts while its client holds the lock and outlasts the
// lease.
func genPause(g *gen) []trace.Fault {
	var out []trace.Fault
	for c := 0; c < g.sc.Clients; c++ {
		for range g.n(1 + g.r.IntN(2)) {
			client := g.sc.Client(c)
			if g.anchored() {
				out = append(out, g.acquired(trace.Fault{Kind: trace.FaultGCPause, Target: client, DurMs: g.outlast()}, client))
				continue
			}
			dur := 10 + g.r.Int64N(990)
			if g.r.IntN(2) == 1 {
				dur = g.span(1, 2, 2)
			}
			out = append(out, g.fault(trace.FaultGCPause, client, dur, 0))
		}
	}
	return out
}

// outlast draws a pause that makes a hold outlive the lease: at least the
// lease minus the workload's work (the hold already spends that), at most
// two leases. Pauses near the low end end while the next holder still
// holds: the paused client's release then meets a foreign key.
func (g *gen) outlast() int64 {
	lo := max(g.lease-g.work, g.lease/4)
	return lo + g.r.Int64N(2*g.lease-lo+1)
}

// genSlowWork adds work beyond what the lease leaves after the
// workload's own work, so that a critical section can outlive the lease.
func genSlowWork(g *gen) []trace.Fault {
	var out []trace.Fault
	for range g.n(1) {
		extra := max(0, g.lease-g.work) + g.span(0, 1, 1)/2 + 1
		client := g.client()
		if g.anchored() {
			f := trace.Fault{Kind: trace.FaultSlowWork, Target: client, DurMs: g.lease * 2, Value: extra}
			out = append(out, g.invoked(f, client, model.OpAcquire))
			continue
		}
		out = append(out, g.fault(trace.FaultSlowWork, client, g.window/2, extra))
	}
	return out
}

func genStall(g *gen) []trace.Fault {
	var out []trace.Fault
	for c := 0; c < g.sc.Clients; c++ {
		for range g.n(1) {
			client := g.sc.Client(c)
			f := g.fault(trace.FaultWatchdogStall, client, g.span(1, 1, 3), 0)
			f = g.place(f, client)
			out = append(out, f)
		}
	}
	return out
}

func genClientCrash(g *gen) []trace.Fault {
	var out []trace.Fault
	for range g.n(1) {
		restart := int64(0)
		if g.r.IntN(3) > 0 {
			restart = 1000 + g.r.Int64N(9000)
		}
		client := g.client()
		f := g.fault(trace.FaultClientCrash, client, restart, 0)
		f = g.place(f, client)
		out = append(out, f)
	}
	return out
}

// genInterrupt interrupts a client's application threads; anchored, the
// moment its acquire has been sent (or 1 ms later), while the request is
// in flight: Redisson's #7272 window.
func genInterrupt(g *gen) []trace.Fault {
	var out []trace.Fault
	for range g.n(2) {
		client := g.client()
		f := g.fault(trace.FaultInterrupt, client, 0, 0)
		if g.anchored() {
			f = g.invoked(f, client, model.OpAcquire)
			f.Anchor.AfterMs = g.r.Int64N(2)
		}
		out = append(out, f)
	}
	return out
}

// The generators of the network faults.

// genPartition cuts a client from the lock's node(s), or in a replicated
// deployment may cut the master from the sentinel and replicas while
// clients still reach it (split brain), long enough for a promotion.
func genPartition(g *gen) []trace.Fault {
	var out []trace.Fault
	for range g.n(2) {
		out = append(out, g.partition()...)
	}
	return out
}

func (g *gen) partition() []trace.Fault {
	nodes := LockNodes(g.sc)
	anchored := g.anchored()
	client := g.client()
	variant := g.r.IntN(3)
	if g.sc.Topology == TopoReplicated && variant == 1 && len(nodes) > 2 {
		return g.staleReplica(nodes)
	}
	if g.sc.Topology == TopoReplicated && variant == 0 {
		dur := g.sc.DownAfterMs + 1000 + g.sc.DiscoveryMs + g.span(1, 2, 4)
		base := g.fault(trace.FaultPartition, "", dur, 0)
		if anchored {
			base = g.acquired(base, client)
		}
		var out []trace.Fault
		for _, other := range append([]string{sim.Sentinel}, nodes[1:]...) {
			f := base
			f.Target = MasterNode + "<->" + other
			out = append(out, f)
		}
		return out
	}
	f := g.fault(trace.FaultPartition, client+"<->"+nodes[g.r.IntN(len(nodes))], g.span(1, 2, 4), 0)
	if anchored {
		f = g.acquired(f, client)
	}
	return []trace.Fault{f}
}

// staleReplica cuts the first replica from the master (it falls behind)
// and the sentinel from the others (they cannot be promoted), for the
// whole run: harmless alone, but a failover then promotes the stale
// replica, although a WAIT saw another replica acknowledge the write.
func (g *gen) staleReplica(nodes []string) []trace.Fault {
	dur := g.window + 2*g.lease
	out := []trace.Fault{{Kind: trace.FaultPartition, Target: MasterNode + "<->" + nodes[1], DurMs: dur}}
	for _, r := range nodes[2:] {
		out = append(out, trace.Fault{Kind: trace.FaultPartition, Target: sim.Sentinel + "<->" + r, DurMs: dur})
	}
	return out
}

func genReplyLoss(g *gen) []trace.Fault {
	var out []trace.Fault
	for range g.n(2) {
		f := g.fault(trace.FaultReplyLoss, g.node(true), 1000+g.r.Int64N(4000), 200+g.r.Int64N(801))
		if g.anchored() {
			f = g.invoked(f, g.client(), model.OpAcquire)
		}
		out = append(out, f)
	}
	return out
}

// genDelay holds a client's messages to the data or the lock back for
// about a lease.
func genDelay(g *gen) []trace.Fault {
	var out []trace.Fault
	for range g.n(1) {
		client := g.client()
		to := DataNode(g.sc)
		if g.sc.Workload == "unique-name" {
			to = DBService
		}
		if g.r.IntN(2) == 0 {
			nodes := LockNodes(g.sc)
			to = nodes[g.r.IntN(len(nodes))]
		}
		f := g.fault(trace.FaultDelay, client+"->"+to, g.span(1, 1, 2), g.span(1, 2, 2))
		f = g.place(f, client)
		out = append(out, f)
	}
	return out
}

// The generators of the node faults.

func genReplicationLag(g *gen) []trace.Fault {
	var out []trace.Fault
	for range g.n(1) {
		out = append(out, g.fault(trace.FaultReplicationLag, sim.Master, g.window, 500+g.r.Int64N(4500)))
	}
	return out
}

// genFailover: the master is down long enough for the sentinel to promote
// a replica, after a stretch of slow replication, so that it dies with
// writes its replicas have not received (seed 001's failure). Anchored,
// it dies right after (or during) a client's hold.
func genFailover(g *gen) []trace.Fault {
	var out []trace.Fault
	for range g.n(1) {
		down := max(g.sc.DownAfterMs, 1000)
		f := g.fault(trace.FaultFailover, g.node(true), down*2+g.r.Int64N(down*2), 0)
		lag := g.span(1, 1, 4)
		from := max(0, f.AtMs-lag)
		lagF := trace.Fault{Kind: trace.FaultReplicationLag, Target: f.Target, AtMs: from, DurMs: f.AtMs - from + f.DurMs, Value: lag}
		if g.anchored() {
			f = g.acquired(f, g.client())
			lagF.AtMs, lagF.DurMs = 0, g.window+f.DurMs
		}
		if g.r.IntN(4) == 0 {
			// No lag: a lock that waits for a replica's acknowledgement
			// (WAIT) can only lose its key to a stale promotion.
			out = append(out, f)
			continue
		}
		out = append(out, lagF, f)
	}
	return out
}

// genNodeRestart restarts a lock node; anchored, while a client holds the
// lock (or right after it invoked its release), and on independent
// masters after cutting the holder from a minority so that it holds a
// bare quorum.
func genNodeRestart(g *gen) []trace.Fault {
	var out []trace.Fault
	for range g.n(1) {
		f := g.fault(trace.FaultNodeRestart, g.node(true), 100+g.r.Int64N(1900), 0)
		if !g.anchored() {
			out = append(out, f)
			continue
		}
		out = append(out, g.onHolder(f)...)
	}
	return out
}

// genClockJump jumps a node's clock (or a client's); anchored, forward
// past the lease of a holder's key, as genNodeRestart places its restart.
func genClockJump(g *gen) []trace.Fault {
	var out []trace.Fault
	for range g.n(1) {
		if g.anchored() {
			f := trace.Fault{Kind: trace.FaultClockJump, Target: g.node(true), Value: g.span(2, 2, 2)}
			out = append(out, g.onHolder(f)...)
			continue
		}
		jump := g.span(1, 2, 2)
		if g.r.IntN(4) == 0 {
			jump = -jump
		}
		target := g.node(false)
		if g.r.IntN(3) == 0 {
			target = g.client()
		}
		out = append(out, g.fault(trace.FaultClockJump, target, 0, jump))
	}
	return out
}

// onHolder anchors the node fault f to a holder's acquire (or, a quarter
// of the time, its release). On independent masters it cuts the holder
// from a minority of the masters for the whole run, half the time, and
// aims f at one of the masters the holder still reaches: Kleppmann's
// Redlock cases need a holder owning a bare quorum.
func (g *gen) onHolder(f trace.Fault) []trace.Fault {
	holder := g.client()
	var out []trace.Fault
	if nodes := LockNodes(g.sc); g.sc.Topology == TopoIndependent && g.r.IntN(2) == 0 {
		perm := g.r.Perm(len(nodes))
		cut := len(nodes) - (len(nodes)/2 + 1)
		for _, i := range perm[:cut] {
			out = append(out, trace.Fault{Kind: trace.FaultPartition, Target: holder + "<->" + nodes[i], DurMs: g.window + g.lease*2})
		}
		f.Target = nodes[perm[cut]]
	}
	if g.r.IntN(4) == 0 {
		f = g.invoked(f, holder, model.OpRelease)
	} else {
		f = g.acquired(f, holder)
	}
	return append(out, f)
}

func genBlackhole(g *gen) []trace.Fault {
	var out []trace.Fault
	for range g.n(1) {
		f := g.fault(trace.FaultBlackhole, g.node(true), g.span(1, 1, 2), 0)
		f = g.place(f, g.client())
		out = append(out, f)
	}
	return out
}

func genClockDrift(g *gen) []trace.Fault {
	var out []trace.Fault
	for range g.n(1) {
		ppm := 5_000 + g.r.Int64N(195_000) // 0.5 % to 20 % fast
		out = append(out, g.fault(trace.FaultClockDrift, g.node(false), 0, ppm))
	}
	return out
}
