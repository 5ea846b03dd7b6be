package explore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces"
)

// Cell verdicts of the safety matrix.
const (
	CellSafe    = "safe"    // no run showed a violation
	CellUnsafe  = "unsafe"  // a run showed one: Seed is the first
	CellUnknown = "unknown" // no violation, but a check ran out of time
	CellNA      = "n/a"     // the fault kind needs a topology the protocol does not run on
	CellError   = "error"   // a run could not be built or run
)

// FaultTopology names the topology a fault kind needs, for kinds that only
// make sense with replicas; other kinds run on the protocol's default
// topology. Data, not code: a kind added here changes the matrix.
var FaultTopology = map[string]string{
	"failover":        protocols.TopoReplicated,
	"replication-lag": protocols.TopoReplicated,
}

// MatrixOptions selects the rows, the columns and the seeds of a matrix.
type MatrixOptions struct {
	Protocols []string // rows; empty: the whole catalog
	Faults    []string // columns; empty: "none" and protocols.FaultKinds
	Workload  string   // empty: unique-name
	Runs      int      // seeds per cell, FirstSeed to FirstSeed+Runs-1; 0: 20
	FirstSeed uint64
	Clients   int // 0: the scenario default
	Workers   int // parallel runs; 0: GOMAXPROCS
}

// Cell is the verdict of one protocol under one fault kind.
type Cell struct {
	Protocol string  `json:"protocol"`
	Fault    string  `json:"fault"`
	Topology string  `json:"topology,omitempty"`
	Verdict  string  `json:"verdict"`
	Seed     *uint64 `json:"seed,omitempty"`  // the first failing seed
	Cause    string  `json:"cause,omitempty"` // property: cause (reason) of its first counted violation
	Detail   string  `json:"detail,omitempty"`
	Replay   string  `json:"replay,omitempty"`
	// TraceSHA256 is the trace hash of the first failing seed: its replay
	// command must reproduce it.
	TraceSHA256 string `json:"trace_sha256,omitempty"`
}

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

// Judge decides whether one run's report shows the protocol unsafe and
// names the cause. Any violation counts, and any harm to the data the
// checker counted from ground truth (duplicate rows, lost updates,
// oversold units, lost set elements); a write that merely landed after
// its writer's lease (StaleWritesAccepted) is a hazard, not harm, and
// counts only through the violations it causes. For a fencing lock
// (protocols.IsFenced) two clients holding the lock at once is expected:
// the lock is advisory there and only the protected resource decides.
func Judge(r checker.Report, fenced bool) (unsafe bool, cause, detail string) {
	for _, v := range r.Violations {
		if fenced && v.Property == checker.PropMutex {
			continue
		}
		cause = v.Property + ": " + v.Cause
		if v.Reason != "" {
			cause += " (" + v.Reason + ")"
		}
		return true, cause, v.Explanation
	}
	d := r.Damage
	if harm := d.DuplicateInserts + d.LostUpdates + d.OversoldUnits + d.LostElements; harm > 0 {
		return true, "damage", fmt.Sprintf("%d duplicate inserts, %d lost updates, %d oversold units, %d lost elements",
			d.DuplicateInserts, d.LostUpdates, d.OversoldUnits, d.LostElements)
	}
	return false, "", ""
}

// matrixJob is one run of a matrix: a cell and a seed.
type matrixJob struct {
	cell int
	seed uint64
}

type cellRun struct {
	unsafe  bool
	unknown bool
	err     error
	cause   string
	detail  string
	hash    string
}

// RunMatrix runs every cell's seeds on the worker pool, seed-major so
// that early failures prune the most work. Each cell's verdict is a
// function of its seeds alone: unsafe with its lowest failing seed,
// whatever order the workers ran them in.
func RunMatrix(opt MatrixOptions) (*Matrix, error) {
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
	var jobs []matrixJob
	for s := range uint64(opt.Runs) {
		for ci, c := range cells {
			if c.Verdict == "" {
				jobs = append(jobs, matrixJob{cell: ci, seed: opt.FirstSeed + s})
			}
		}
	}
	unknown := make([]bool, len(cells))
	err = judgeCells(context.Background(), opt.Workers, len(jobs),
		func(k int) (int, protocols.Scenario, bool) {
			j := jobs[k]
			return j.cell, matrixScenario(opt, cells[j.cell], j.seed), fenced[j.cell]
		},
		func(k int, r cellRun) {
			j := jobs[k]
			c := cells[j.cell]
			seed := j.seed
			switch {
			case r.err != nil:
				c.Verdict, c.Seed, c.Detail = CellError, &seed, r.err.Error()
			case r.unsafe:
				c.Verdict, c.Seed, c.Cause, c.Detail = CellUnsafe, &seed, r.cause, r.detail
				c.Replay = ReplayCommand(matrixScenario(opt, c, seed), "")
				c.TraceSHA256 = r.hash
			case r.unknown:
				unknown[j.cell] = true
			}
		})
	if err != nil {
		return nil, err
	}
	for i, c := range cells {
		if c.Verdict != "" {
			continue
		}
		c.Verdict = CellSafe
		if unknown[i] {
			c.Verdict = CellUnknown
		}
	}
	return m, nil
}

// judgeCells runs n jobs on the pool, job k being one scenario of one
// cell, judged; a cell stops at its first unsafe or failed run. A
// cancelled ctx is an error: a cell cut short has no verdict.
func judgeCells(ctx context.Context, workers, n int, job func(k int) (cell int, sc protocols.Scenario, fenced bool),
	deliver func(k int, r cellRun)) error {
	interrupted, err := pool[cellRun]{
		Workers: workers,
		Jobs:    n,
		Group:   func(k int) int { c, _, _ := job(k); return c },
		Run: func(k int) cellRun {
			_, sc, fenced := job(k)
			return runCell(sc, fenced)
		},
		Deliver: func(k int, r cellRun) (bool, error) {
			deliver(k, r)
			return r.err != nil || r.unsafe, nil
		},
	}.run(ctx)
	if interrupted {
		return fmt.Errorf("interrupted: %v", ctx.Err())
	}
	return err
}

// runCell runs one seed of a cell and judges it.
func runCell(sc protocols.Scenario, fenced bool) cellRun {
	o, err := traces.Evaluate(sc)
	if err != nil {
		return cellRun{err: err}
	}
	rep := o.File.Report
	var r cellRun
	r.unsafe, r.cause, r.detail = Judge(rep, fenced)
	r.unknown = rep.Verdict == checker.VerdictUnknown
	if r.unsafe {
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
		opt.Runs = 20
	}
	if len(opt.Protocols) == 0 {
		for _, p := range protocols.Protocols() {
			opt.Protocols = append(opt.Protocols, p.Name)
		}
	}
	if len(opt.Faults) == 0 {
		opt.Faults = append([]string{"none"}, protocols.FaultKinds...)
	}
	for _, f := range opt.Faults {
		if f != "none" && !slices.Contains(protocols.FaultKinds, f) {
			return opt, fmt.Errorf("unknown fault kind %q (known: none, %v)", f, protocols.FaultKinds)
		}
	}
	return opt, nil
}

// newMatrix lays out the cells, each on the topology its fault needs;
// a cell whose protocol cannot run there is n/a from the start.
func newMatrix(opt MatrixOptions) (*Matrix, error) {
	m := &Matrix{Workload: opt.Workload, Runs: opt.Runs, FirstSeed: opt.FirstSeed,
		Faults: opt.Faults, Protocols: opt.Protocols}
	for _, name := range opt.Protocols {
		p, err := protocols.Lookup(name)
		if err != nil {
			return nil, err
		}
		row := make([]Cell, len(opt.Faults))
		for j, f := range opt.Faults {
			c := Cell{Protocol: name, Fault: f, Topology: protocols.SupportedTopologies(p)[0]}
			if need, ok := FaultTopology[f]; ok {
				c.Topology = need
				if !slices.Contains(protocols.SupportedTopologies(p), need) {
					c.Verdict = CellNA
					c.Detail = f + " needs the " + need + " topology; " + name + " runs on " +
						strings.Join(protocols.SupportedTopologies(p), ", ")
				}
			}
			row[j] = c
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

// Text renders the matrix as an aligned table: one row per protocol, one
// column per fault kind; an unsafe cell shows its first failing seed.
// The causes follow the table, one line per unsafe cell.
func (m *Matrix) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "safety matrix: workload %s, seeds %d-%d per cell\n\n", m.Workload, m.FirstSeed, m.FirstSeed+uint64(m.Runs)-1)
	label := func(c Cell) string {
		if c.Verdict == CellUnsafe || c.Verdict == CellError {
			return fmt.Sprintf("%s@%d", c.Verdict, *c.Seed)
		}
		return c.Verdict
	}
	widths := make([]int, len(m.Faults)+1)
	widths[0] = len("protocol")
	for _, p := range m.Protocols {
		widths[0] = max(widths[0], len(p))
	}
	for j, f := range m.Faults {
		widths[j+1] = len(f)
		for _, row := range m.Rows {
			widths[j+1] = max(widths[j+1], len(label(row[j])))
		}
	}
	line := func(cells []string) {
		var l strings.Builder
		for j, s := range cells {
			fmt.Fprintf(&l, "%-*s  ", widths[j], s)
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	line(append([]string{"protocol"}, m.Faults...))
	for i, row := range m.Rows {
		labels := []string{m.Protocols[i]}
		for _, c := range row {
			labels = append(labels, label(c))
		}
		line(labels)
	}
	var causes []string
	for _, row := range m.Rows {
		for _, c := range row {
			if c.Verdict == CellUnsafe || c.Verdict == CellError {
				what := c.Cause
				if c.Verdict == CellError {
					what = "error: " + c.Detail
				}
				causes = append(causes, fmt.Sprintf("  %s / %s, seed %d: %s", c.Protocol, c.Fault, *c.Seed, what))
			}
		}
	}
	if len(causes) > 0 {
		b.WriteString("\nfirst failures:\n" + strings.Join(causes, "\n") + "\n")
	}
	return b.String()
}
