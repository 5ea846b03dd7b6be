package explore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

// Bounded exhaustive verification. In a small scope (by default two
// clients, one operation each, one fault) verify runs the fault-free
// scenario, takes every step of it (steps.go), and runs the scenario once
// per step, per offset and per variant of the fault kind (variants.go):
// every single fault of the kind, at every instant the protocol did
// something. A run is a pure function of its scenario and the scenario
// is the same up to the fault's start, so a fault placed at the absolute
// time of a fault-free step lands exactly at that step.

// VerifyOptions selects the cells and the scope of a verification.
type VerifyOptions struct {
	Protocols []string // empty: the whole catalog
	Faults    []string // fault kinds; empty: every kind
	Workload  string   // empty: unique-name
	Clients   int      // 0: 2
	Ops       int      // 0: 1
	Seed      uint64   // the noise seed of every run; 0 is a seed like any other
	Offsets   []int64  // ms after each step; nil: 0 and 1
	Workers   int      // parallel runs; 0: GOMAXPROCS
	// Depth is the most faults a placement holds: 1 (the default) or 2,
	// which adds the pairs of pairs.go after the single faults.
	Depth int
	// PairBudget bounds the two-fault placements of a depth-2 cell; 0:
	// DefaultPairBudget.
	PairBudget int
}

// Verdicts of a bounded cell, besides CellUnsafe, CellNA and CellError.
const (
	CellBounded       = "bounded-safe"    // no placement in the scope broke it
	CellUnsafeNoFault = "unsafe-no-fault" // the fault-free run already fails
)

// VerifyCell is the bounded verdict of one protocol under one fault kind.
type VerifyCell struct {
	Protocol string `json:"protocol"`
	Fault    string `json:"fault"`
	Topology string `json:"topology,omitempty"`
	Verdict  string `json:"verdict"`
	Claim    string `json:"claim"` // the verdict as a sentence
	Steps    int    `json:"steps"`
	Variants int    `json:"variants"`
	Runs     int    `json:"runs"`
	WallMs   int64  `json:"wall_ms"`            // from the previous cell's last run to this cell's last
	Step     string `json:"step,omitempty"`     // the breaking placement's step
	Variant  string `json:"variant,omitempty"`  // and its fault
	Step2    string `json:"step2,omitempty"`    // with depth 2, the second fault's step
	Variant2 string `json:"variant2,omitempty"` // and its fault
	// Pairs is how many two-fault placements the cell has (depth 2);
	// PairsSkipped, how many of them the budget left out.
	Pairs        int    `json:"pairs,omitempty"`
	PairsSkipped int    `json:"pairs_skipped,omitempty"`
	Cause        string `json:"cause,omitempty"`
	Replay       string `json:"replay,omitempty"`
	TraceSHA256  string `json:"trace_sha256,omitempty"`
}

// Verification is the result of Verify: one cell per protocol and kind.
type Verification struct {
	Workload string       `json:"workload"`
	Clients  int          `json:"clients"`
	Ops      int          `json:"ops"`
	Seed     uint64       `json:"seed"`
	Offsets  []int64      `json:"offsets_ms"`
	Depth    int          `json:"depth"` // the most faults in a placement
	Cells    []VerifyCell `json:"cells"`
}

// A placement is one variant at one step and offset.
type placement struct {
	step    step
	offset  int64
	variant *variant
}

// verifyJob is what one run of a cell places: a fault, or with depth 2
// a second one too.
type verifyJob struct {
	cell int
	placement
	second *placement
}

// Verify runs the bounded scope of every cell on the worker pool; a cell
// stops at its first breaking placement, in step order.
func Verify(ctx context.Context, opt VerifyOptions) (*Verification, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	v := &Verification{Workload: opt.Workload, Clients: opt.Clients, Ops: opt.Ops, Seed: opt.Seed, Offsets: opt.Offsets,
		Depth: opt.Depth}
	var jobs []verifyJob
	var bases []protocols.Scenario
	var fenced []bool
	for _, name := range opt.Protocols {
		p, err := protocols.Lookup(name)
		if err != nil {
			return nil, err
		}
		for _, kind := range opt.Faults {
			cell, base, cellJobs, err := opt.plan(p, kind, len(v.Cells))
			if err != nil {
				return nil, err
			}
			v.Cells = append(v.Cells, cell)
			bases = append(bases, base)
			fenced = append(fenced, protocols.IsFenced(p))
			jobs = append(jobs, cellJobs...)
		}
	}
	walls := make([]time.Duration, len(v.Cells))
	last := time.Now()
	err = judgeCells(ctx, opt.Workers, len(jobs), true,
		func(k int) (int, protocols.Scenario, bool) {
			j := jobs[k]
			return j.cell, placed(bases[j.cell], j), fenced[j.cell]
		},
		func(k int, r cellRun) {
			j := jobs[k]
			c := &v.Cells[j.cell]
			c.Runs++
			now := time.Now()
			walls[j.cell] += now.Sub(last)
			last = now
			switch {
			case r.err != nil:
				c.Verdict, c.Claim = CellError, fmt.Sprintf("error at %s: %v", j.step.Label, r.err)
			case r.Unsafe:
				c.Verdict, c.Cause, c.TraceSHA256 = CellUnsafe, r.Cause, r.hash
				c.Step, c.Variant = j.where(), j.variant.label
				c.Claim = fmt.Sprintf("unsafe: one %s at %s breaks it (%s)", j.variant.label, c.Step, r.Cause)
				if j.second != nil {
					c.Step2, c.Variant2 = j.second.where(), j.second.variant.label
					c.Claim = fmt.Sprintf("unsafe: %s at %s with %s at %s breaks it (%s)",
						j.variant.label, c.Step, c.Variant2, c.Step2, r.Cause)
				}
				c.Replay = ReplayCommand(placed(bases[j.cell], j), "")
			}
		})
	if err != nil {
		return nil, err
	}
	for i := range v.Cells {
		c := &v.Cells[i]
		c.WallMs = walls[i].Milliseconds()
		if c.Verdict == "" {
			c.Verdict = CellBounded
			c.Claim = fmt.Sprintf("no single %s at any of %d steps breaks it (bound: %d clients, %d op each, 1 fault; %d placements)",
				c.Fault, c.Steps, opt.Clients, opt.Ops, c.Runs)
			if opt.Depth == 2 {
				c.Claim = pairClaim(*c, opt)
			}
		}
	}
	return v, nil
}

// where names a placement's step and offset.
func (p placement) where() string {
	return fmt.Sprintf("%s (t=%d ms%s)", p.step.Label, p.step.AtMs, plusMs(p.offset))
}

func plusMs(ms int64) string {
	if ms == 0 {
		return ""
	}
	return fmt.Sprintf(" +%d ms", ms)
}

func (opt VerifyOptions) withDefaults() (VerifyOptions, error) {
	if opt.Workload == "" {
		opt.Workload = "unique-name"
	}
	if _, err := protocols.LookupWorkload(opt.Workload); err != nil {
		return opt, err
	}
	if opt.Clients == 0 {
		opt.Clients = 2
	}
	if opt.Ops == 0 {
		opt.Ops = 1
	}
	if opt.Offsets == nil {
		opt.Offsets = []int64{0, 1}
	}
	switch opt.Depth {
	case 0:
		opt.Depth = 1
	case 1, 2:
	default:
		return opt, fmt.Errorf("depth must be 1 or 2, not %d", opt.Depth)
	}
	if opt.PairBudget <= 0 {
		opt.PairBudget = DefaultPairBudget
	}
	if len(opt.Protocols) == 0 {
		for _, p := range protocols.Protocols() {
			opt.Protocols = append(opt.Protocols, p.Name)
		}
	}
	if len(opt.Faults) == 0 {
		opt.Faults = slices.Clone(trace.KindNames())
	}
	for _, f := range opt.Faults {
		if !slices.Contains(trace.KindNames(), f) {
			return opt, fmt.Errorf("unknown fault kind %q (known: %v)", f, trace.KindNames())
		}
	}
	return opt, nil
}

// plan runs the fault-free scenario of one cell and lists its placements.
// A cell whose fault needs a topology the protocol lacks is n/a; one
// whose fault-free run already fails needs no placement.
func (opt VerifyOptions) plan(p protocols.Protocol, kind string, cell int) (VerifyCell, protocols.Scenario, []verifyJob, error) {
	c := VerifyCell{Protocol: p.Name, Fault: kind}
	topo, na := CellTopology(p, kind)
	if na != "" {
		c.Verdict, c.Claim = CellNA, na
		return c, protocols.Scenario{}, nil, nil
	}
	c.Topology = topo
	base := protocols.Scenario{Seed: opt.Seed, Protocol: p.Name, Workload: opt.Workload, Clients: opt.Clients,
		Ops: opt.Ops, Topology: topo}
	o, err := traces.Evaluate(base)
	if err != nil {
		return c, base, nil, err
	}
	if j := Judge(o.File.Report, o.File.Trace, protocols.IsFenced(p)); j.Unsafe {
		c.Verdict, c.Cause = CellUnsafeNoFault, j.Cause
		c.Claim = "unsafe without any fault (" + j.Cause + ")"
		c.Replay = ReplayCommand(base, "")
		return c, base, nil, nil
	}
	s := scope{sc: o.File.Scenario, nodes: partiesOf(o.File.Trace, trace.EvCommand, trace.EvReplicate, trace.EvExpire), services: partiesOf(o.File.Trace, trace.EvService)}
	for i := range s.sc.Clients {
		s.clients = append(s.clients, s.sc.Client(i))
	}
	vs, err := s.variants(kind)
	if err != nil {
		return c, base, nil, err
	}
	steps := stepsOf(o.File.Trace)
	c.Steps, c.Variants = len(steps), len(vs)
	if len(vs) == 0 {
		c.Verdict, c.Claim = CellNA, kind+" has no target in this scope"
		return c, base, nil, nil
	}
	var jobs []verifyJob
	for _, st := range steps {
		for _, off := range opt.Offsets {
			for i := range vs {
				jobs = append(jobs, verifyJob{cell: cell, placement: placement{st, off, &vs[i]}})
			}
		}
	}
	if opt.Depth == 2 {
		pairs, total, skipped, err := s.pairs(cell, steps, vs, opt.PairBudget)
		if err != nil {
			return c, base, nil, err
		}
		c.Pairs, c.PairsSkipped = total, skipped
		jobs = append(jobs, pairs...)
	}
	return c, base, jobs, nil
}

// placed is base with j's variants placed at their steps and offsets.
func placed(base protocols.Scenario, j verifyJob) protocols.Scenario {
	sc := base
	sc.Faults = j.placement.faults(nil)
	if j.second != nil {
		sc.Faults = j.second.faults(sc.Faults)
	}
	for _, p := range []*placement{&j.placement, j.second} {
		if p != nil && p.variant.mod != nil {
			p.variant.mod(&sc)
		}
	}
	return sc
}

// faults appends p's faults, each at p's step and offset unless fixed.
func (p placement) faults(out []trace.Fault) []trace.Fault {
	at := p.step.AtMs + p.offset
	for i, f := range p.variant.faults {
		if !p.variant.fixed[i] {
			f.AtMs = at
		}
		out = append(out, f)
	}
	return out
}

// CellTopology is the topology a fault kind is judged on for protocol p:
// a fault that needs replicas (failover, replication-lag) runs replicated
// or is n/a (the reason is returned); a partition runs replicated when
// the protocol can (split brain needs a sentinel); anything else runs on
// the protocol's own topology.
func CellTopology(p protocols.Protocol, kind string) (topology, na string) {
	supported := protocols.SupportedTopologies(p)
	switch kind {
	case trace.FaultFailover, trace.FaultReplicationLag:
		if !slices.Contains(supported, protocols.TopoReplicated) {
			return "", fmt.Sprintf("%s needs the replicated topology; %s runs on %v", kind, p.Name, supported)
		}
		return protocols.TopoReplicated, ""
	case trace.FaultPartition:
		if slices.Contains(supported, protocols.TopoReplicated) {
			return protocols.TopoReplicated, ""
		}
	}
	return supported[0], ""
}
