package locktest

import (
	"encoding/binary"
	"fmt"
	"sort"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// The scenario generator. Every choice is drawn as an integer in a range
// whose low end is the simplest value: rapid shrinks toward it, and a
// fuzz input that runs out of bytes reads it. The order of the draws is
// part of the design:
//
//  1. the choices that decide safety, up front: topology, clients,
//     threads, operations, lease, sentinel settings, when clients start
//     and how soon they retry;
//  2. the fault schedule, as a list of explicit events (kind, target,
//     start, duration, value), so that shrinking drops whole events and
//     lowers each one's numbers;
//  3. last, the PRNG seed, which only moves noise (network jitter, think
//     times, tokens).
//
// Durations and amounts are drawn in eighths of the scenario's lease: a
// fault shorter than the lease rarely breaks it, so a schedule that
// shrinks keeps faults that still matter, and the shrunk numbers read as
// "9/8 of the lease". A failover's outage is drawn in units of the
// sentinel's down-after time, which decides whether a replica is promoted.

// source is where the generator's choices come from: rapid, or the bytes
// of a fuzz input.
type source interface {
	// intn draws an int in [lo, hi]; lo is the simplest.
	intn(label string, lo, hi int) int
	// u64 draws the noise seed.
	u64(label string, max uint64) uint64
	// events draws up to max fault events, each drawn by one.
	events(label string, max int, one func(source) []trace.Fault) [][]trace.Fault
}

type rapidSource struct{ t *rapid.T }

func (s rapidSource) intn(label string, lo, hi int) int {
	if hi <= lo {
		return lo // no draw: fewer blocks for rapid to shrink
	}
	return rapid.IntRange(lo, hi).Draw(s.t, label)
}

func (s rapidSource) u64(label string, max uint64) uint64 {
	return rapid.Uint64Range(0, max).Draw(s.t, label)
}

func (s rapidSource) events(label string, max int, one func(source) []trace.Fault) [][]trace.Fault {
	ev := rapid.Custom(func(t *rapid.T) []trace.Fault { return one(rapidSource{t}) })
	return rapid.SliceOfN(ev, 0, max).Draw(s.t, label)
}

// byteSource decodes a fuzz input: two bytes per choice (four for wide
// ranges), taken modulo the range; past the end every choice is its
// simplest value, so every input decodes to a valid scenario.
type byteSource struct{ b []byte }

func (s *byteSource) take(n int) uint64 {
	var buf [8]byte
	k := copy(buf[8-n:], s.b)
	s.b = s.b[k:]
	return binary.BigEndian.Uint64(buf[:])
}

func (s *byteSource) intn(_ string, lo, hi int) int {
	if hi <= lo {
		return lo
	}
	span := uint64(hi - lo + 1)
	n := 2
	if span > 1<<16 {
		n = 4
	}
	return lo + int(s.take(n)%span)
}

func (s *byteSource) u64(_ string, max uint64) uint64 {
	v := s.take(8)
	if max < ^uint64(0) {
		v %= max + 1
	}
	return v
}

func (s *byteSource) events(label string, max int, one func(source) []trace.Fault) [][]trace.Fault {
	n := s.intn(label, 0, max)
	out := make([][]trace.Fault, 0, n)
	for range n {
		out = append(out, one(s))
	}
	return out
}

// Scenarios returns a generator of the scenarios cfg describes, for
// users who write their own rapid.Check. The scenarios are normalized:
// every field explicit, the fault schedule as timed trace.Fault events.
// It panics if cfg is not valid.
func Scenarios(cfg Config) *rapid.Generator[protocols.Scenario] {
	c := cfg.mustPrepare()
	return rapid.Custom(func(t *rapid.T) protocols.Scenario {
		return c.draw(rapidSource{t})
	})
}

// Decode turns a fuzz input into a scenario of cfg, deterministically:
// the same bytes give the same scenario, and every input gives a valid
// one (the empty input gives the simplest).
func Decode(cfg Config, data []byte) (protocols.Scenario, error) {
	c, err := cfg.prepare()
	if err != nil {
		return protocols.Scenario{}, err
	}
	return c.draw(&byteSource{b: data}), nil
}

// staggers are the delays between client starts drawn among (client i
// starts i*stagger late). The simplest is not 0: with staggered starts
// c1 takes the lock first, so a shrunk schedule needs no fault just to
// decide who goes first, and its faults aim at c1 as the reference
// timelines do.
var staggers = []int64{500, 0, 100, 200, 1000, 2000, 5000}

// retries are the retry intervals of a refused lock drawn among, the
// scenario default first.
var retries = []int64{500, 250, 1000, 100}

// seeds bounds the noise seed: the seed only moves noise, and a small
// range keeps rapid's shrinking of it cheap (it tries bit patterns in
// quadratic time in the width of a value).
const seeds = 1<<16 - 1

// eighths is how many eighths of the lease a duration or amount is drawn
// in: 1/8 to 3 leases.
const maxEighths = 24

// draw draws one scenario from src.
func (c *config) draw(src source) protocols.Scenario {
	sc := protocols.Scenario{
		Protocol: c.Protocol,
		Workload: c.Workload,
		Topology: c.topos[src.intn("topology", 0, len(c.topos)-1)],
	}
	sc.Clients = src.intn("clients", 1, c.MaxClients)
	sc.Threads = src.intn("threads", 1, c.MaxThreads)
	sc.Ops = src.intn("ops", 1, c.MaxOps)
	sc.LeaseMs = c.leases[src.intn("lease", 0, len(c.leases)-1)]
	sc.WorkMs = c.Work.Milliseconds()
	switch sc.Topology {
	case protocols.TopoReplicated:
		sc.Nodes = src.intn("replicas", 1, 2)
		sc.DownAfterMs = 1000 * int64(src.intn("down_after_s", 1, 5))
	case protocols.TopoIndependent:
		sc.Nodes = c.proto.Masters
		if sc.Nodes == 0 {
			sc.Nodes = 5
		}
	}
	sc.StaggerMs = staggers[src.intn("stagger", 0, len(staggers)-1)]
	sc.RetryMs = retries[src.intn("retry", 0, len(retries)-1)]

	p := c.parties(sc)
	if c.MaxFaults > 0 && len(c.Faults) > 0 {
		for _, ev := range src.events("faults", c.MaxFaults, p.event) {
			sc.Faults = append(sc.Faults, ev...)
		}
		sort.SliceStable(sc.Faults, func(i, j int) bool { return sc.Faults[i].AtMs < sc.Faults[j].AtMs })
	}
	if sc.Faults == nil {
		sc.Faults = []trace.Fault{}
	}
	sc.Seed = src.u64("seed", seeds)
	n, err := sc.Normalize()
	if err != nil {
		// The generator only draws valid scenarios: this is a bug here.
		panic(fmt.Sprintf("locktest: drew an invalid scenario: %v", err))
	}
	return n
}

// parties are the scenario's real parties, by the role a fault may hit,
// simplest first.
type parties struct {
	c        *config
	eighth   int64 // ms
	windowMs int64 // how long clients keep working, roughly
	downMs   int64 // sentinel down-after
	clients  []string
	nodes    []string // node targets: sim.Master first when it is an alias
	masters  []string // failover targets: the nodes that are masters
	links    []string // partition targets
	delays   []string // delay targets
	losers   []string // reply-loss targets: nodes and the data service
	clocks   []string // clock targets: nodes, then clients
}

func (c *config) parties(sc protocols.Scenario) *parties {
	work := sc.WorkMs
	if work == 0 {
		wl, _ := protocols.LookupWorkload(sc.Workload)
		work = wl.WorkMs
	}
	p := &parties{
		c:        c,
		eighth:   max(1, sc.LeaseMs/8),
		windowMs: sc.StaggerMs*int64(sc.Clients-1) + int64(sc.Ops)*(work+200+10) + 1000,
		downMs:   max(sc.DownAfterMs, 1000),
	}
	for i := range sc.Clients {
		p.clients = append(p.clients, protocols.ClientName(i))
	}
	var lock []string // the nodes the lock lives on
	switch sc.Topology {
	case protocols.TopoReplicated:
		lock = []string{protocols.MasterNode}
		for i := range sc.Nodes {
			lock = append(lock, protocols.ReplicaName(i))
		}
		p.nodes = append([]string{sim.Master}, lock...)
		p.masters = []string{sim.Master, protocols.MasterNode}
	case protocols.TopoIndependent:
		for i := range sc.Nodes {
			lock = append(lock, protocols.IndependentName(i))
		}
		p.nodes = lock
	default:
		lock = []string{protocols.MasterNode}
		p.nodes = lock
	}
	if p.masters == nil {
		p.masters = p.nodes
	}
	data := protocols.DataNode(sc)
	if sc.Workload == "unique-name" {
		data = protocols.DBService
	}
	for _, cl := range p.clients {
		for _, n := range lock {
			p.links = append(p.links, cl+"<->"+n)
			p.delays = append(p.delays, cl+"->"+n)
		}
		if data != protocols.MasterNode {
			p.delays = append(p.delays, cl+"->"+data)
		}
		for _, n := range lock {
			p.delays = append(p.delays, n+"->"+cl)
		}
	}
	if sc.Topology == protocols.TopoReplicated {
		// Split brain: the master cut from the sentinel or a replica
		// while clients still reach it.
		p.links = append(p.links, protocols.MasterNode+"<->"+sim.Sentinel)
		for _, n := range lock[1:] {
			p.links = append(p.links, protocols.MasterNode+"<->"+n)
		}
	}
	p.links = append(p.links, lock...) // a lone node, cut from everyone
	p.losers = append(append([]string(nil), p.nodes...), data)
	if data == protocols.MasterNode {
		p.losers = p.nodes
	}
	p.clocks = append(append([]string(nil), p.nodes...), p.clients...)
	if c.bridged { // a bridged process has no clock of its own
		p.clocks = p.nodes
	}
	return p
}

// event draws one fault event of a configured kind: a failover is one
// event of two sim faults (the slow replication that precedes the crash,
// as protocols.GenerateFaults draws it, then the crash).
func (p *parties) event(src source) []trace.Fault {
	kind := p.c.Faults[src.intn("kind", 0, len(p.c.Faults)-1)]
	pick := func(from []string) string { return from[src.intn("target", 0, len(from)-1)] }
	at := func() int64 { return 100 * int64(src.intn("at_100ms", 0, int(p.windowMs/100))) }
	span := func(lo int) int64 { return p.eighth * int64(src.intn("eighths", lo, maxEighths)) }
	sign := func(v int64) int64 {
		if src.intn("negative", 0, 1) == 1 {
			return -v
		}
		return v
	}
	f := trace.Fault{Kind: kind}
	switch kind {
	case trace.FaultGCPause, trace.FaultWatchdogStall:
		f.Target, f.AtMs, f.DurMs = pick(p.clients), at(), span(1)
	case trace.FaultSlowWork:
		f.Target, f.AtMs, f.DurMs, f.Value = pick(p.clients), at(), span(1), span(1)
	case trace.FaultPartition:
		f.Target, f.AtMs, f.DurMs = pick(p.links), at(), span(1)
	case FaultDelay:
		f.Target, f.AtMs, f.DurMs, f.Value = pick(p.delays), at(), span(1), span(1)
	case trace.FaultReplicationLag:
		f.Target, f.AtMs, f.DurMs, f.Value = pick(p.nodes), at(), span(1), span(1)
	case trace.FaultFailover:
		f.Target, f.AtMs = pick(p.masters), at()
		f.DurMs = p.downMs * int64(4+src.intn("down_halves", 0, 8)) / 2
		lag := span(0)
		if lag == 0 {
			return []trace.Fault{f}
		}
		from := max(0, f.AtMs-lag)
		return []trace.Fault{{Kind: trace.FaultReplicationLag, Target: f.Target, AtMs: from, DurMs: f.AtMs - from + f.DurMs, Value: lag}, f}
	case trace.FaultClockJump:
		f.Target, f.AtMs = pick(p.clocks), at()
		f.Value = sign(span(1))
	case trace.FaultClockDrift:
		f.Target, f.AtMs = pick(p.clocks), at()
		f.Value = sign(5000 * int64(src.intn("drift_5000ppm", 1, 40)))
	case trace.FaultClientCrash:
		f.Target, f.AtMs, f.DurMs = pick(p.clients), at(), span(0) // 0: never restarts
	case trace.FaultNodeRestart, trace.FaultBlackhole:
		f.Target, f.AtMs, f.DurMs = pick(p.nodes), at(), span(1)
	case trace.FaultReplyLoss:
		f.Target, f.AtMs, f.DurMs = pick(p.losers), at(), span(1)
		f.Value = 1000 - 200*int64(src.intn("loss_minus_20pct", 0, 4))
	case trace.FaultInterrupt:
		f.Target, f.AtMs = pick(p.clients), at()
	}
	return []trace.Fault{f}
}
