package explore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

// Cell verdicts of the safety matrix, in the words of Verdict.
const (
	CellSafe    = VerdictNotFound // no run showed a violation: the rate it rules out is in the evidence
	CellUnsafe  = VerdictUnsafe   // a run showed one: Seed is the first
	CellUnknown = VerdictUnknown  // no unsafe run, but a run was not judged (a budget stopped it, or the checker could not decide)
	// cellDataLoss: the lock held, but the data store lost writes with a
	// node (a failover, a restart), which no lock can prevent.
	cellDataLoss = VerdictDataLoss
	cellNA       = VerdictNA    // the fault kind needs a topology the protocol does not run on
	CellError    = VerdictError // a run could not be built or run
)

// DefaultMatrixRuns is the seeds per cell of the README's matrix and of
// its pins: a cell with no unsafe run among them has a violating rate
// below 3 % at 95 % confidence.
const DefaultMatrixRuns = 100

// MatrixOptions selects the rows, the columns and the seeds of a matrix.
type MatrixOptions struct {
	Protocols []string // rows; empty: the whole catalog (unless Files)
	// Files are the rows of locks described in protocol files, after
	// Protocols'.
	Files     []*protocols.ProtocolFile
	Faults    []string // columns; empty: "none" and trace.KindNames()
	Workload  string   // empty: unique-name
	Runs      int      // seeds per cell, FirstSeed to FirstSeed+Runs-1; 0: DefaultMatrixRuns
	FirstSeed uint64
	Clients   int // 0: drawn per seed, as explore draws them
	Workers   int // parallel runs; 0: GOMAXPROCS
	// Verify adds each cell's bounded exhaustive verdict: Verify's
	// default scope, FirstSeed its noise seed, so that `locksim verify
	// --seed S` gives the same verdict on the same cell.
	Verify bool
}

// Cell is the verdict of one protocol under one fault kind: the summary
// of Explore over the cell's generator (CellScenario) at the matrix's
// budget, so `locksim explore --protocol P --faults F --runs N` prints
// the same counts.
type Cell struct {
	Protocol  string `json:"protocol"`
	Fault     string `json:"fault"`
	Topology  string `json:"topology,omitempty"`
	Verdict   string `json:"verdict"`
	Runs      int    `json:"runs"`                // seeds run
	Violating int    `json:"violating"`           // of them, judged unsafe
	Unknown   int    `json:"unknown,omitempty"`   // of them, not judged (inconclusive: Evidence.UnknownWhy says why)
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
	TraceSHA256 string `json:"trace_sha256,omitempty"`
	// Evidence is the verdict with its evidence, in the words explore
	// and verify use.
	Evidence Verdict     `json:"evidence"`
	Bounded  *VerifyCell `json:"bounded,omitempty"` // the bounded exhaustive verdict, with MatrixOptions.Verify

	file *protocols.ProtocolFile // the row's protocol file, if it has one
}

// Rate is the share of the cell's judged runs that were unsafe.
func (c Cell) Rate() float64 { return c.Evidence.Rate }

// Matrix is the safety matrix: one row per protocol, one column per fault
// kind.
type Matrix struct {
	Workload  string   `json:"workload"`
	Runs      int      `json:"runs"`
	FirstSeed uint64   `json:"first_seed"`
	Faults    []string `json:"faults"`
	Protocols []string `json:"protocols"`
	Rows      [][]Cell `json:"rows"`
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
	judgement
	notJudged string // why the run was not judged; "": it was
	err       error
	hash      string
}

// RunMatrix explores every cell at the matrix's budget, cell after cell,
// each on the worker pool. Each cell's verdict, rate and first failing
// seed are a function of its seeds alone, whatever order the workers ran
// them in.
func RunMatrix(ctx context.Context, opt MatrixOptions) (*Matrix, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	m, err := newMatrix(opt)
	if err != nil {
		return nil, err
	}
	for i := range m.Rows {
		for j := range m.Rows[i] {
			c := &m.Rows[i][j]
			if c.Verdict != "" {
				continue
			}
			base := matrixScenario(opt, c)
			s, err := Explore(ctx, ExploreConfig{Base: base, Runs: opt.Runs, SeedStart: opt.FirstSeed, Workers: opt.Workers}, nil)
			if err != nil {
				return nil, err
			}
			if s.Interrupted {
				return nil, fmt.Errorf("interrupted: %v", ctx.Err())
			}
			c.fill(s)
		}
	}
	if opt.Verify {
		if err := m.addBounded(ctx, opt); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// fill makes the cell the summary s of its exploration.
func (c *Cell) fill(s *Summary) {
	c.Topology, c.Runs, c.Violating, c.Unknown, c.DataLoss = s.Topology, s.Runs, s.UnsafeRuns, s.Unknown, s.DataLossRuns
	c.DataLossSeed, c.DataLossCause = s.FirstDataLoss, s.DataLossCause
	c.Evidence = s.Verdict
	c.Verdict = s.Verdict.Verdict
	if s.FirstUnsafe != nil {
		sc := s.Scenario
		sc.Seed = *s.FirstUnsafe
		c.Seed, c.Cause, c.Detail, c.TraceSHA256 = s.FirstUnsafe, s.UnsafeCause, s.UnsafeDetail, s.UnsafeTrace
		c.Replay = ReplayCommand(sc, "")
	}
	if c.Verdict == CellError {
		c.Detail = s.FirstError
	}
}

// addBounded runs Verify over the matrix's rows and columns and attaches
// each cell's bounded verdict: Verify's scope as `locksim verify` runs it,
// the matrix's first seed its noise seed (both default to 1).
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
	v, err := Verify(ctx, VerifyOptions{Protocols: opt.Protocols, Files: opt.Files, Faults: kinds, Workload: opt.Workload,
		Seed: opt.FirstSeed, Workers: opt.Workers})
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
	r := cellRun{judgement: judge(rep, o.File.Trace, fenced)}
	r.notJudged = r.judgement.notJudged(rep)
	if r.Unsafe {
		r.hash = traces.Hash(o.File)
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
	if len(opt.Protocols) == 0 && len(opt.Files) == 0 {
		for _, p := range protocols.Protocols() {
			opt.Protocols = append(opt.Protocols, p.Name)
		}
	}
	if len(opt.Faults) == 0 {
		opt.Faults = append([]string{"none"}, trace.KindNames()...)
	}
	for _, f := range opt.Faults {
		if f != "none" && !slices.Contains(trace.KindNames(), f) {
			return opt, fmt.Errorf("unknown fault kind %q (known: none, %s)", f, strings.Join(trace.KindNames(), ", "))
		}
	}
	return opt, nil
}

// newMatrix lays out the cells, each on the topology its fault is judged
// on (CellTopology); a cell whose protocol cannot run there is n/a from
// the start.
func newMatrix(opt MatrixOptions) (*Matrix, error) {
	m := &Matrix{Workload: opt.Workload, Runs: opt.Runs, FirstSeed: opt.FirstSeed, Faults: opt.Faults, Protocols: slices.Clone(opt.Protocols)}
	rows, err := rowProtocols(opt.Protocols, opt.Files)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		p, name := r.p, r.p.Name
		if r.file != nil {
			m.Protocols = append(m.Protocols, name)
		}
		row := make([]Cell, len(opt.Faults))
		for j, f := range opt.Faults {
			topo, na := cellTopology(p, f)
			row[j] = Cell{Protocol: name, Fault: f, Topology: topo, file: r.file}
			if na != "" {
				row[j].Verdict, row[j].Detail, row[j].Evidence = cellNA, na, notApplicable(na)
			}
		}
		m.Rows = append(m.Rows, row)
	}
	return m, nil
}

// matrixScenario is the generator of one cell: explore's.
func matrixScenario(opt MatrixOptions, c *Cell) protocols.Scenario {
	sc := cellScenario(c.Protocol, opt.Workload, c.Fault)
	sc.ProtocolFile = c.file
	sc.Clients = opt.Clients
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
