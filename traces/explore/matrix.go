package explore

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

// Cell verdicts of the safety matrix.
const (
	CellSafe    = "safe"    // no run showed a violation
	CellUnsafe  = "unsafe"  // a run showed one: Seed is the first
	CellUnknown = "unknown" // no violation, but a check was inconclusive
	// CellDataLoss: the lock held, but the data store lost writes with a
	// node (a failover, a restart), which no lock can prevent.
	CellDataLoss = "data-loss"
	CellNA       = "n/a"   // the fault kind needs a topology the protocol does not run on
	CellError    = "error" // a run could not be built or run
)

// DefaultMatrixRuns is the seeds per cell of the README's matrix and of
// its pins: a cell safe in all of them has a violating rate below 3 %
// at 95 % confidence. The three workloads' matrices take about 3 CPU
// minutes at this count (BENCHMARKS.md).
const DefaultMatrixRuns = 100

// MatrixOptions selects the rows, the columns and the seeds of a matrix.
type MatrixOptions struct {
	Protocols []string // rows; empty: the whole catalog
	Faults    []string // columns; empty: "none" and trace.KindNames()
	Workload  string   // empty: unique-name
	Runs      int      // seeds per cell, FirstSeed to FirstSeed+Runs-1; 0: DefaultMatrixRuns
	FirstSeed uint64
	Clients   int  // 0: the scenario default
	Workers   int  // parallel runs; 0: GOMAXPROCS
	Verify    bool // add each cell's bounded exhaustive verdict (Verify's default scope)
	// UntilFirst stops each cell at its first unsafe seed (the pool's
	// stopping rule): the verdict and first seed are the same, the rate
	// is not measured. For checks that only need the verdict.
	UntilFirst bool
}

// Cell is the verdict of one protocol under one fault kind.
type Cell struct {
	Protocol  string `json:"protocol"`
	Fault     string `json:"fault"`
	Topology  string `json:"topology,omitempty"`
	Verdict   string `json:"verdict"`
	Runs      int    `json:"runs"`                // seeds run
	Violating int    `json:"violating"`           // of them, unsafe
	Unknown   int    `json:"unknown,omitempty"`   // of them, inconclusive
	DataLoss  int    `json:"data_loss,omitempty"` // of them, the lock held but the data store lost writes
	// DataLossSeed and DataLossCause are the first such run's.
	DataLossSeed  *uint64 `json:"data_loss_seed,omitempty"`
	DataLossCause string  `json:"data_loss_cause,omitempty"`
	Seed          *uint64 `json:"seed,omitempty"`  // the first failing seed
	Cause         string  `json:"cause,omitempty"` // property: cause (reason) of its first counted violation
	Detail        string  `json:"detail,omitempty"`
	Replay        string  `json:"replay,omitempty"`
	// TraceSHA256 is the trace hash of the first failing seed: its replay
	// command must reproduce it.
	TraceSHA256 string      `json:"trace_sha256,omitempty"`
	Bounded     *VerifyCell `json:"bounded,omitempty"` // the bounded exhaustive verdict, with MatrixOptions.Verify
}

// Rate is the share of the cell's runs that were unsafe.
func (c Cell) Rate() float64 {
	if c.Runs == 0 {
		return 0
	}
	return float64(c.Violating) / float64(c.Runs)
}

// UpperBound95 is the highest violating rate that still leaves a 5 %
// chance of seeing no violation in n independent runs: 1 - 0.05^(1/n),
// about 3/n (the rule of three).
func UpperBound95(n int) float64 {
	if n <= 0 {
		return 1
	}
	return 1 - math.Pow(0.05, 1/float64(n))
}

// Matrix is the safety matrix: one row per protocol, one column per fault
// kind.
type Matrix struct {
	Workload  string `json:"workload"`
	Runs      int    `json:"runs"`
	FirstSeed uint64 `json:"first_seed"`
	// UntilFirst: each unsafe cell stopped at its first failing seed, so
	// it has no rate.
	UntilFirst bool     `json:"until_first,omitempty"`
	Faults     []string `json:"faults"`
	Protocols  []string `json:"protocols"`
	Rows       [][]Cell `json:"rows"`
}

// Cell returns the cell of protocol under fault, or false.
func (m *Matrix) Cell(protocol, fault string) (Cell, bool) {
	for _, row := range m.Rows {
		for _, c := range row {
			if c.Protocol == protocol && c.Fault == fault {
				return c, true
			}
		}
	}
	return Cell{}, false
}

type cellRun struct {
	Judgement
	unknown bool
	err     error
	hash    string
}

// RunMatrix runs every seed of every cell on the worker pool, seed-major.
// Each cell's verdict, rate and first failing seed are a function of its
// seeds alone, whatever order the workers ran them in. A cell stops only
// at an error; an unsafe cell runs all its seeds, for its rate.
func RunMatrix(ctx context.Context, opt MatrixOptions) (*Matrix, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	m, err := newMatrix(opt)
	if err != nil {
		return nil, err
	}
	var cells []*Cell
	var fenced []bool
	for i := range m.Rows {
		p, _ := protocols.Lookup(m.Rows[i][0].Protocol)
		for j := range m.Rows[i] {
			cells = append(cells, &m.Rows[i][j])
			fenced = append(fenced, protocols.IsFenced(p))
		}
	}
	// Job k is seed k/len(open) of cell open[k%len(open)]: seeds in order
	// across the cells, computed rather than listed (10^5 runs of 10^2
	// cells would be 10^7 jobs).
	var open []int
	for ci, c := range cells {
		if c.Verdict == "" {
			open = append(open, ci)
		}
	}
	job := func(k int) (int, uint64) {
		return open[k%len(open)], opt.FirstSeed + uint64(k/len(open))
	}
	if len(open) > 0 {
		err = judgeCells(ctx, opt.Workers, opt.Runs*len(open), opt.UntilFirst,
			func(k int) (int, protocols.Scenario, bool) {
				ci, seed := job(k)
				return ci, matrixScenario(opt, cells[ci], seed), fenced[ci]
			},
			func(k int, r cellRun) {
				ci, seed := job(k)
				cells[ci].add(seed, r, opt)
			})
	}
	if err != nil {
		return nil, err
	}
	for _, c := range cells {
		c.settle()
	}
	if opt.Verify {
		if err := m.addBounded(ctx, opt); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// add folds one seed's run into the cell; seeds arrive in order.
func (c *Cell) add(seed uint64, r cellRun, opt MatrixOptions) {
	if c.Verdict == CellError {
		return
	}
	c.Runs++
	switch {
	case r.err != nil:
		c.Verdict, c.Seed, c.Detail = CellError, &seed, r.err.Error()
	case r.Unsafe:
		c.Violating++
		if c.Seed == nil {
			c.Seed, c.Cause, c.Detail = &seed, r.Cause, r.Detail
			c.Replay = ReplayCommand(matrixScenario(opt, c, seed), "")
			c.TraceSHA256 = r.hash
		}
	case r.DataLoss:
		c.DataLoss++
		if c.DataLossSeed == nil {
			c.DataLossSeed, c.DataLossCause = &seed, r.Cause
		}
	case r.unknown:
		c.Unknown++
	}
}

// settle gives a cell whose runs are done its verdict.
func (c *Cell) settle() {
	switch {
	case c.Verdict != "":
	case c.Violating > 0:
		c.Verdict = CellUnsafe
	case c.DataLoss > 0:
		c.Verdict = CellDataLoss
	case c.Unknown > 0:
		c.Verdict = CellUnknown
	default:
		c.Verdict = CellSafe
	}
}

// addBounded runs Verify over the matrix's rows and columns and attaches
// each cell's bounded verdict.
func (m *Matrix) addBounded(ctx context.Context, opt MatrixOptions) error {
	var kinds []string
	for _, f := range opt.Faults {
		if f != "none" {
			kinds = append(kinds, f)
		}
	}
	if len(kinds) == 0 {
		return nil
	}
	v, err := Verify(ctx, VerifyOptions{Protocols: opt.Protocols, Faults: kinds, Workload: opt.Workload, Workers: opt.Workers})
	if err != nil {
		return err
	}
	for i := range v.Cells {
		vc := v.Cells[i]
		for r := range m.Rows {
			for j := range m.Rows[r] {
				if c := &m.Rows[r][j]; c.Protocol == vc.Protocol && c.Fault == vc.Fault {
					c.Bounded = &vc
				}
			}
		}
	}
	return nil
}

// judgeCells runs n jobs on the pool, job k being one scenario of one
// cell, judged. A cell stops at its first failed run, and, with
// stopUnsafe, at its first unsafe one. A cancelled ctx is an error: a
// cell cut short has no verdict.
func judgeCells(ctx context.Context, workers, n int, stopUnsafe bool, job func(k int) (cell int, sc protocols.Scenario, fenced bool),
	deliver func(k int, r cellRun)) error {
	worlds := &sim.Pool{} // Redis stores and coroutines the runs pass on
	defer worlds.Close()
	interrupted, err := pool[cellRun]{
		Workers: workers,
		Jobs:    n,
		Group:   func(k int) int { c, _, _ := job(k); return c },
		Run: func(k int) cellRun {
			_, sc, fenced := job(k)
			return runCell(sc, fenced, worlds)
		},
		Deliver: func(k int, r cellRun) (bool, error) {
			deliver(k, r)
			return r.err != nil || stopUnsafe && r.Unsafe, nil
		},
	}.run(ctx)
	if interrupted {
		return fmt.Errorf("interrupted: %v", ctx.Err())
	}
	return err
}

// runCell runs one seed of a cell and judges it, its world built from
// worlds.
func runCell(sc protocols.Scenario, fenced bool, worlds *sim.Pool) cellRun {
	o, err := traces.EvaluatePooled(sc, worlds)
	if err != nil {
		return cellRun{err: err}
	}
	rep := o.File.Report
	r := cellRun{Judgement: Judge(rep, o.File.Trace, fenced)}
	r.unknown = rep.Verdict == checker.VerdictUnknown
	if r.Unsafe {
		r.hash = o.File.Trace.Hash()
	}
	return r
}

// withDefaults fills the options' defaults and checks the names.
func (opt MatrixOptions) withDefaults() (MatrixOptions, error) {
	if opt.Workload == "" {
		opt.Workload = "unique-name"
	}
	if _, err := protocols.LookupWorkload(opt.Workload); err != nil {
		return opt, err
	}
	if opt.Runs <= 0 {
		opt.Runs = DefaultMatrixRuns
	}
	if len(opt.Protocols) == 0 {
		for _, p := range protocols.Protocols() {
			opt.Protocols = append(opt.Protocols, p.Name)
		}
	}
	if len(opt.Faults) == 0 {
		opt.Faults = append([]string{"none"}, trace.KindNames()...)
	}
	for _, f := range opt.Faults {
		if f != "none" && !slices.Contains(trace.KindNames(), f) {
			return opt, fmt.Errorf("unknown fault kind %q (known: none, %v)", f, trace.KindNames())
		}
	}
	return opt, nil
}

// newMatrix lays out the cells, each on the topology its fault is judged
// on (CellTopology); a cell whose protocol cannot run there is n/a from
// the start.
func newMatrix(opt MatrixOptions) (*Matrix, error) {
	m := &Matrix{Workload: opt.Workload, Runs: opt.Runs, FirstSeed: opt.FirstSeed, UntilFirst: opt.UntilFirst,
		Faults: opt.Faults, Protocols: opt.Protocols}
	for _, name := range opt.Protocols {
		p, err := protocols.Lookup(name)
		if err != nil {
			return nil, err
		}
		row := make([]Cell, len(opt.Faults))
		for j, f := range opt.Faults {
			topo, na := CellTopology(p, f)
			row[j] = Cell{Protocol: name, Fault: f, Topology: topo}
			if na != "" {
				row[j].Verdict, row[j].Detail = CellNA, na
			}
		}
		m.Rows = append(m.Rows, row)
	}
	return m, nil
}

// matrixScenario is the scenario of one matrix run.
func matrixScenario(opt MatrixOptions, c *Cell, seed uint64) protocols.Scenario {
	sc := protocols.Scenario{Seed: seed, Protocol: c.Protocol, Workload: opt.Workload, Clients: opt.Clients,
		Topology: c.Topology}
	if c.Fault != "none" {
		sc.FaultKinds = []string{c.Fault}
	}
	return sc
}

// Unsafe reports whether any cell is unsafe.
func (m *Matrix) Unsafe() bool {
	for _, row := range m.Rows {
		for _, c := range row {
			if c.Verdict == CellUnsafe {
				return true
			}
		}
	}
	return false
}
