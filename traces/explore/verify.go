package explore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

// Bounded exhaustive verification: the exhaustive complement of a cell's
// sampled verdict. A cell's generator (CellScenario) draws, per seed, the
// parameters that decide most cells (the hold, the sentinel's
// down-after) and places its faults at random; verify fixes those
// parameters at the points of its bound and places every single fault of
// the kind at every step instead. For each point it runs the fault-free
// scenario, takes every step of it (steps.go), and runs the scenario once
// per step, per offset and per variant of the fault kind (variants.go):
// every single fault of the kind, at every instant the protocol did
// something. A run is a pure function of its scenario and the scenario
// is the same up to the fault's start, so a fault placed at the absolute
// time of a fault-free step lands exactly at that step.
//
// The bound (DefaultVerifyClients clients x DefaultVerifyOps operations
// each; each hold and down-after below) was measured against the cells
// explore and matrix find unsafe: a short hold (the workload's own) and
// one near the lease (98 % of it: the orphan-acquire seeds of
// redisson-trylock under failover drew 29.1-30.0 s of a 30 s lease); on
// a sentinel topology under failover or partition, a down-after shorter
// than the hold (1 s: the promotion lands while the hold is live) and
// longer (the hold plus 2 s). One operation per client misses the
// failures that need a second acquire (a client that locks again on the
// deposed master after the promotion).

// The bound's defaults.
const (
	DefaultVerifyClients = 2
	DefaultVerifyOps     = 2
)

// VerifyOptions selects the cells and the scope of a verification.
type VerifyOptions struct {
	Protocols []string // empty: the whole catalog (unless Files)
	// Files are locks described in protocol files, verified after
	// Protocols.
	Files    []*protocols.ProtocolFile
	Faults   []string // fault kinds; empty: every kind
	Workload string   // empty: unique-name
	Clients  int      // 0: DefaultVerifyClients
	Ops      int      // 0: DefaultVerifyOps
	// Holds are the critical sections' lengths in ms; nil: the
	// workload's own and 98 % of the protocol's lease.
	Holds []int64
	// DownAfters are the sentinel's down-after in ms, for failover and
	// partition on the replicated topology; nil: 1 s and each hold plus
	// 2 s.
	DownAfters []int64
	Seed       uint64  // the noise seed of every run; 0 is a seed like any other
	Offsets    []int64 // ms after each step; nil: 0 and 1
	Workers    int     // parallel runs; 0: GOMAXPROCS
	// Depth is the most faults a placement holds: 1 (the default) or 2,
	// which adds the pairs of pairs.go after the single faults.
	Depth int
	// PairBudget bounds the two-fault placements of a depth-2 cell,
	// shared evenly by its points (a point needing less leaves the rest
	// to the next); 0: DefaultPairBudget.
	PairBudget int
	// MaxEvents is every run's event budget; 0: each scenario's default.
	MaxEvents int64
}

// Verdicts of a bounded cell, besides CellUnsafe, CellNA and CellError.
const (
	cellBounded       = VerdictVerified      // no placement in the scope broke it
	CellUnsafeNoFault = VerdictUnsafeNoFault // the fault-free run already fails
)

// VerifyCell is the bounded verdict of one protocol under one fault kind.
type VerifyCell struct {
	Protocol string `json:"protocol"`
	Fault    string `json:"fault"`
	Topology string `json:"topology,omitempty"`
	Verdict  string `json:"verdict"`
	Claim    string `json:"claim"` // the verdict as a sentence: Evidence.Text
	// Bound is the cell's scope: the clients, operations, holds and
	// down-afters its placements ran with.
	Bound    string  `json:"bound"`
	Evidence Verdict `json:"evidence"`
	Steps    int     `json:"steps"` // over the bound's points
	Variants int     `json:"variants"`
	Runs     int     `json:"runs"`
	WallMs   int64   `json:"wall_ms"`            // from the previous cell's last run to this cell's last
	Step     string  `json:"step,omitempty"`     // the breaking placement's step
	Variant  string  `json:"variant,omitempty"`  // and its fault
	Step2    string  `json:"step2,omitempty"`    // with depth 2, the second fault's step
	Variant2 string  `json:"variant2,omitempty"` // and its fault
	// Pairs is how many two-fault placements the cell has (depth 2);
	// PairsSkipped, how many of them the budget left out.
	Pairs        int `json:"pairs,omitempty"`
	PairsSkipped int `json:"pairs_skipped,omitempty"`
	// Unknown counts the runs not judged (a budget stopped them, or the
	// checker could not decide), a count per reason in UnknownWhy; with
	// no breaking placement, the cell is then inconclusive.
	Unknown     int        `json:"unknown,omitempty"`
	UnknownWhy  []WhyCount `json:"unknown_why,omitempty"`
	Cause       string     `json:"cause,omitempty"`
	Replay      string     `json:"replay,omitempty"`
	TraceSHA256 string     `json:"trace_sha256,omitempty"`
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

// verifyJob is what one run of a cell places, on one point of the
// bound's base scenarios: a fault, or with depth 2 a second one too.
type verifyJob struct {
	cell int
	base int // index of the point's scenario among Verify's bases
	placement
	second *placement
}

// Verify runs the bounded scope of every cell on the worker pool; a cell
// stops at its first breaking placement, in point then step order.
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
	rows, err := rowProtocols(opt.Protocols, opt.Files)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		p := r.p
		for _, kind := range opt.Faults {
			cell, cellJobs, err := opt.plan(r, kind, len(v.Cells), &bases)
			if err != nil {
				return nil, err
			}
			v.Cells = append(v.Cells, cell)
			fenced = append(fenced, protocols.IsFenced(p))
			jobs = append(jobs, cellJobs...)
		}
	}
	walls := make([]time.Duration, len(v.Cells))
	last := time.Now()
	err = judgeCells(ctx, opt.Workers, len(jobs), true,
		func(k int) (int, protocols.Scenario, bool) {
			j := jobs[k]
			return j.cell, placed(bases[j.base], j), fenced[j.cell]
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
				c.Verdict = CellError
				c.Evidence = failed("exhaustive", fmt.Sprintf("at %s: %v", j.step.Label, r.err))
				c.Claim = c.Evidence.Text
			case r.Unsafe:
				c.Verdict, c.Cause, c.TraceSHA256 = CellUnsafe, r.Cause, r.hash
				c.Step, c.Variant = j.where(), j.variant.label
				found := fmt.Sprintf("one %s at %s", j.variant.label, c.Step)
				if j.second != nil {
					c.Step2, c.Variant2 = j.second.where(), j.second.variant.label
					found = fmt.Sprintf("%s at %s with %s at %s", j.variant.label, c.Step, c.Variant2, c.Step2)
				}
				found += " (" + pointOf(bases[j.base]) + ")"
				c.Evidence = exhaustive(c.Fault, opt.Depth, c.Bound, c.tried(opt), found, r.Cause)
				c.Claim = c.Evidence.Text
				c.Replay = ReplayCommand(placed(bases[j.base], j), "")
			case r.notJudged != "":
				c.Unknown++
				c.UnknownWhy = addWhy(c.UnknownWhy, r.notJudged, 1)
			}
		})
	if err != nil {
		return nil, err
	}
	for i := range v.Cells {
		c := &v.Cells[i]
		c.WallMs = walls[i].Milliseconds()
		if c.Verdict == "" {
			c.Evidence = exhaustive(c.Fault, opt.Depth, c.Bound, c.tried(opt), "", "")
			c.Verdict, c.Claim = c.Evidence.Verdict, c.Evidence.Text
		}
	}
	return v, nil
}

// tried is what the cell ran so far.
func (c *VerifyCell) tried(opt VerifyOptions) tried {
	return tried{runs: c.Runs, unknown: c.Unknown, why: whyText(c.UnknownWhy),
		pairs: pairCount{run: c.Pairs - c.PairsSkipped, total: c.Pairs, budget: opt.PairBudget}}
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
		opt.Clients = DefaultVerifyClients
	}
	if opt.Ops == 0 {
		opt.Ops = DefaultVerifyOps
	}
	if opt.Offsets == nil {
		opt.Offsets = []int64{0, 1}
	}
	for _, ms := range append(slices.Clone(opt.Holds), opt.DownAfters...) {
		if ms < 1 {
			return opt, fmt.Errorf("holds and down-afters must be at least 1 ms")
		}
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
	if len(opt.Protocols) == 0 && len(opt.Files) == 0 {
		for _, p := range protocols.Protocols() {
			opt.Protocols = append(opt.Protocols, p.Name)
		}
	}
	if len(opt.Faults) == 0 {
		opt.Faults = slices.Clone(trace.KindNames())
	}
	for _, f := range opt.Faults {
		if !slices.Contains(trace.KindNames(), f) {
			return opt, fmt.Errorf("unknown fault kind %q (known: %s)", f, strings.Join(trace.KindNames(), ", "))
		}
	}
	return opt, nil
}

// A point of the bound: the parameters the cell's generator draws that
// verify fixes, one value each.
type point struct {
	holdMs, downAfterMs int64 // downAfterMs 0: the topology's default
}

// points lists the bound's points for protocol p under kind on topology:
// every hold, and on a sentinel topology under a fault that makes the
// sentinel promote, every down-after with it.
func (opt VerifyOptions) points(p protocols.Protocol, kind, topology string) (pts []point, bound string, err error) {
	wl, err := protocols.LookupWorkload(opt.Workload)
	if err != nil {
		return nil, "", err
	}
	lease := p.Lease.Milliseconds()
	holds := opt.Holds
	if holds == nil {
		holds = []int64{wl.WorkMs, lease - lease/50}
	}
	holds = dedupe(holds)
	var downs []int64
	if topology == protocols.TopoReplicated && (kind == trace.FaultFailover || kind == trace.FaultPartition) {
		downs = opt.DownAfters
		if downs == nil {
			downs = []int64{1000}
			for _, h := range holds {
				downs = append(downs, h+2000)
			}
		}
		downs = dedupe(downs)
	}
	for _, h := range holds {
		if len(downs) == 0 {
			pts = append(pts, point{holdMs: h})
		}
		for _, d := range downs {
			if opt.DownAfters == nil && d > 1000 && d != h+2000 {
				continue // the default pairs each hold with 1 s and its own hold + 2 s
			}
			pts = append(pts, point{holdMs: h, downAfterMs: d})
		}
	}
	bound = fmt.Sprintf("%d clients x %d ops, hold %s", opt.Clients, opt.Ops, seconds(holds))
	switch {
	case len(downs) > 0 && opt.DownAfters == nil:
		bound += ", sentinel down-after 1 s and the hold + 2 s"
	case len(downs) > 0:
		bound += ", sentinel down-after " + seconds(downs)
	}
	bound += fmt.Sprintf(", offsets %s ms, seed %d", joinInts(opt.Offsets), opt.Seed)
	return pts, bound, nil
}

func dedupe(xs []int64) []int64 {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}

// seconds writes durations in ms as seconds: "5 s or 29.4 s".
func seconds(ms []int64) string {
	var parts []string
	for _, m := range ms {
		parts = append(parts, secondsOf(m))
	}
	return strings.Join(parts, " or ")
}

func secondsOf(ms int64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", float64(ms)/1000), "0"), ".") + " s"
}

func joinInts(xs []int64) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, fmt.Sprint(x))
	}
	return strings.Join(parts, ",")
}

// pointOf names the point of a base scenario, for a breaking placement.
func pointOf(sc protocols.Scenario) string {
	s := "hold " + secondsOf(sc.WorkMs)
	if sc.DownAfterMs > 0 {
		s += ", down-after " + secondsOf(sc.DownAfterMs)
	}
	return s
}

// plan runs the fault-free scenario of each point of one cell and lists
// its placements, appending the points' scenarios to bases. A cell whose
// fault needs a topology the protocol lacks is n/a; one whose fault-free
// run already fails at some point needs no placement.
func (opt VerifyOptions) plan(r row, kind string, cell int, bases *[]protocols.Scenario) (VerifyCell, []verifyJob, error) {
	p := r.p
	c := VerifyCell{Protocol: p.Name, Fault: kind}
	topo, na := cellTopology(p, kind)
	if na != "" {
		c.Verdict, c.Evidence = cellNA, notApplicable(na)
		c.Claim = c.Evidence.Text
		return c, nil, nil
	}
	c.Topology = topo
	pts, bound, err := opt.points(p, kind, topo)
	if err != nil {
		return c, nil, err
	}
	c.Bound = bound
	var jobs []verifyJob
	pairsLeft := opt.PairBudget // the cell's, shared by its points
	for i, pt := range pts {
		base := cellScenario(p.Name, opt.Workload, kind)
		base.ProtocolFile = r.file
		base.Swarm, base.FaultKinds = false, nil
		base.Seed, base.Clients, base.Ops, base.Topology = opt.Seed, opt.Clients, opt.Ops, topo
		base.WorkMs, base.DownAfterMs, base.MaxEvents = pt.holdMs, pt.downAfterMs, opt.MaxEvents
		o, err := traces.Evaluate(base)
		if err != nil {
			return c, nil, err
		}
		j := judge(o.File.Report, o.File.Trace, protocols.IsFenced(p))
		if j.Unsafe {
			c.Verdict, c.Cause = CellUnsafeNoFault, j.Cause
			c.Evidence = unsafeWithoutFault(bound+" ("+pointOf(base)+")", j.Cause)
			c.Claim = c.Evidence.Text
			c.Replay = ReplayCommand(base, "")
			return c, nil, nil
		}
		if why := j.notJudged(o.File.Report); why != "" { // its steps may be cut short
			c.Unknown, c.UnknownWhy = 1, addWhy(nil, why, 1)
			c.Evidence = exhaustive(kind, opt.Depth, bound+" ("+pointOf(base)+")", tried{unknown: 1, why: why}, "", "")
			c.Verdict, c.Claim = c.Evidence.Verdict, c.Evidence.Text
			c.Replay = ReplayCommand(base, "")
			return c, nil, nil
		}
		s := scope{sc: o.File.Scenario, nodes: partiesOf(o.File.Trace, trace.EvCommand, trace.EvReplicate, trace.EvExpire), services: partiesOf(o.File.Trace, trace.EvService)}
		for i := range s.sc.Clients {
			s.clients = append(s.clients, s.sc.Client(i))
		}
		vs, err := s.variants(kind)
		if err != nil {
			return c, nil, err
		}
		steps := stepsOf(o.File.Trace)
		c.Steps += len(steps)
		c.Variants = max(c.Variants, len(vs))
		bi := len(*bases)
		*bases = append(*bases, base)
		for _, st := range steps {
			for _, off := range opt.Offsets {
				for i := range vs {
					jobs = append(jobs, verifyJob{cell: cell, base: bi, placement: placement{st, off, &vs[i]}})
				}
			}
		}
		if opt.Depth == 2 {
			pairs, total, skipped, err := s.pairs(cell, bi, steps, vs, pairsLeft/(len(pts)-i))
			if err != nil {
				return c, nil, err
			}
			pairsLeft -= len(pairs)
			c.Pairs, c.PairsSkipped = c.Pairs+total, c.PairsSkipped+skipped
			jobs = append(jobs, pairs...)
		}
	}
	if opt.Depth == 2 && c.PairsSkipped == 0 {
		c.Bound += ", up to 2 faults" // else the claim says which two-fault placements it tried
	}
	if c.Variants == 0 {
		c.Verdict, c.Evidence = cellNA, notApplicable(kind+" has no target in this scope")
		c.Claim = c.Evidence.Text
		return c, nil, nil
	}
	return c, jobs, nil
}

// placed is base with j's variants placed at their steps and offsets.
func placed(base protocols.Scenario, j verifyJob) protocols.Scenario {
	sc := base
	sc.Faults = j.placement.faults(nil)
	if j.second != nil {
		sc.Faults = j.second.faults(sc.Faults)
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
