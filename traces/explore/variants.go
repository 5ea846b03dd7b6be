package explore

import (
	"fmt"
	"slices"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// A variant is one fault of a kind, with its target and amounts, that
// verify places at every step: its faults start at the step (a failover's
// slow replication starts at 0, so that the writes before the crash are
// the master's alone).
type variant struct {
	faults []trace.Fault // AtMs relative to the step, except where fixed
	fixed  []bool        // the fault's AtMs is absolute
	label  string
}

// scope is what variants are drawn from: the normalized scenario and the
// parties of its fault-free run.
type scope struct {
	sc       protocols.Scenario
	clients  []string
	nodes    []string
	services []string // what the workload writes to, when not Redis
}

// durations are the lengths tried for a fault that lasts: shorter than
// the lease, just longer, and twice as long.
func (s scope) durations() []int64 {
	l := s.sc.LeaseMs
	return []int64{l / 2, l + 1000, 2 * l}
}

func one(kind, target string, dur, value int64, label string) variant {
	return variant{faults: []trace.Fault{{Kind: kind, Target: target, DurMs: dur, Value: value}}, fixed: []bool{false}, label: label}
}

// variants lists the single faults of kind that verify tries at each step.
func (s scope) variants(kind string) ([]variant, error) {
	var out []variant
	each := func(targets []string, amounts []int64, build func(target string, amount int64) variant) {
		for _, t := range targets {
			for _, a := range amounts {
				out = append(out, build(t, a))
			}
		}
	}
	l := s.sc.LeaseMs
	switch kind {
	case trace.FaultGCPause, trace.FaultWatchdogStall:
		each(s.clients, s.durations(), func(t string, d int64) variant {
			return one(kind, t, d, 0, fmt.Sprintf("%s of %s for %d ms", kind, t, d))
		})
	case trace.FaultSlowWork:
		each(s.clients, []int64{l, 2 * l}, func(t string, v int64) variant {
			return one(kind, t, 2*l+s.sc.WorkMs, v, fmt.Sprintf("slow-work of %s (+%d ms)", t, v))
		})
	case trace.FaultPartition:
		out = append(out, s.partitions()...)
	case trace.FaultReplicationLag:
		each(s.masters(), []int64{1000, l}, func(t string, v int64) variant {
			return one(kind, t, 2*l, v, fmt.Sprintf("replication-lag of %s (+%d ms)", t, v))
		})
	case trace.FaultFailover:
		out = append(out, s.failovers()...)
	case trace.FaultClockJump:
		each(append(slices.Clone(s.nodes), s.clients...), []int64{l + 1000, 2 * l, -l}, func(t string, v int64) variant {
			return one(kind, t, 0, v, fmt.Sprintf("clock-jump of %s by %+d ms", t, v))
		})
	case trace.FaultClockDrift:
		each(s.nodes, []int64{200_000}, func(t string, v int64) variant {
			return one(kind, t, 0, v, fmt.Sprintf("clock-drift of %s (+%d ppm)", t, v))
		})
	case trace.FaultClientCrash:
		each(s.clients, []int64{0, 5000}, func(t string, d int64) variant {
			return one(kind, t, d, 0, fmt.Sprintf("client-crash of %s (restart after %d ms)", t, d))
		})
	case trace.FaultNodeRestart:
		each(s.nodes, []int64{100, 5000}, func(t string, d int64) variant {
			return one(kind, t, d, 0, fmt.Sprintf("node-restart of %s (down %d ms)", t, d))
		})
	case trace.FaultBlackhole:
		each(s.nodes, s.durations(), func(t string, d int64) variant {
			return one(kind, t, d, 0, fmt.Sprintf("blackhole of %s for %d ms", t, d))
		})
	case trace.FaultDelay:
		for _, c := range s.clients {
			each(append(slices.Clone(s.nodes), s.services...), []int64{l + 1000}, func(n string, v int64) variant {
				return one(kind, c+"->"+n, 2*l, v, fmt.Sprintf("delay %s->%s (+%d ms)", c, n, v))
			})
		}
	case trace.FaultReplyLoss:
		each(s.nodes, []int64{1, 1000}, func(t string, d int64) variant {
			return one(kind, t, d, 1000, fmt.Sprintf("reply-loss at %s for %d ms", t, d))
		})
	case trace.FaultInterrupt:
		// At every step, so at every moment a request is in flight.
		for _, c := range s.clients {
			out = append(out, one(kind, c, 0, 0, "interrupt of "+c))
		}
	default:
		return nil, fmt.Errorf("verify does not know fault kind %q", kind)
	}
	return out, nil
}

// masters are the nodes a master-only fault may hit.
func (s scope) masters() []string {
	if s.sc.Topology == protocols.TopoReplicated {
		return []string{sim.Master}
	}
	return s.nodes
}

// partitions cut one client from one node, or, with replicas, the master
// from the sentinel and its replicas while clients still reach it (split
// brain, seed 001's second failure).
func (s scope) partitions() []variant {
	var out []variant
	for _, c := range s.clients {
		for _, n := range s.nodes {
			for _, d := range s.durations() {
				out = append(out, one(trace.FaultPartition, c+"<->"+n, d, 0, fmt.Sprintf("partition %s<->%s for %d ms", c, n, d)))
			}
		}
	}
	if s.sc.Topology != protocols.TopoReplicated {
		return out
	}
	for _, d := range s.durations() {
		v := variant{label: fmt.Sprintf("split brain: %s cut from the sentinel and replicas for %d ms", protocols.MasterNode, d)}
		for _, other := range append([]string{sim.Sentinel}, s.replicas()...) {
			v.faults = append(v.faults, trace.Fault{Kind: trace.FaultPartition, Target: protocols.MasterNode + "<->" + other, DurMs: d})
			v.fixed = append(v.fixed, false)
		}
		out = append(out, v)
	}
	return out
}

func (s scope) replicas() []string {
	var out []string
	for _, n := range s.nodes {
		if n != protocols.MasterNode {
			out = append(out, n)
		}
	}
	return out
}

// failovers crash the master at the step, with replication slowed by a
// lease from the start (so what the master acknowledged may be lost).
// Whether a hold is still live at the promotion depends on the
// sentinel's down-after: the bound's points try it shorter and longer
// than the hold (verify.go).
func (s scope) failovers() []variant {
	if s.sc.Topology != protocols.TopoReplicated {
		return nil
	}
	down := s.sc.DownAfterMs
	crash := 2*down + 2000
	lag := trace.Fault{Kind: trace.FaultReplicationLag, Target: sim.Master, DurMs: s.sc.HorizonMs, Value: s.sc.LeaseMs}
	return []variant{{
		faults: []trace.Fault{lag, {Kind: trace.FaultFailover, Target: sim.Master, DurMs: crash}},
		fixed:  []bool{true, false},
		label:  fmt.Sprintf("failover (down-after %d ms, replication %d ms behind)", down, s.sc.LeaseMs),
	}}
}
