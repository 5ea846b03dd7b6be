package explore

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

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

type runResult struct {
	done    bool
	unsafe  bool
	unknown bool
	err     error
	cause   string
	detail  string
}

// RunMatrix runs every cell's seeds with traces.Execute on a pool of
// workers. Each cell's verdict is a function of its seeds alone: a cell is
// unsafe with the lowest failing seed, whatever order the workers ran
// them in (seeds above a failure already found are skipped).
func RunMatrix(opt MatrixOptions) (*Matrix, error) {
	if opt.Workload == "" {
		opt.Workload = "unique-name"
	}
	if _, err := protocols.LookupWorkload(opt.Workload); err != nil {
		return nil, err
	}
	if opt.Runs <= 0 {
		opt.Runs = 20
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if len(opt.Protocols) == 0 {
		for _, p := range protocols.Protocols() {
			opt.Protocols = append(opt.Protocols, p.Name)
		}
	}
	if len(opt.Faults) == 0 {
		opt.Faults = append([]string{"none"}, protocols.FaultKinds...)
	}
	m := &Matrix{Workload: opt.Workload, Runs: opt.Runs, FirstSeed: opt.FirstSeed,
		Faults: opt.Faults, Protocols: opt.Protocols}
	var cells []*Cell
	var fenced []bool
	for _, name := range opt.Protocols {
		p, err := protocols.Lookup(name)
		if err != nil {
			return nil, err
		}
		row := make([]Cell, len(opt.Faults))
		for j, f := range opt.Faults {
			if f != "none" && !slices.Contains(protocols.FaultKinds, f) {
				return nil, fmt.Errorf("unknown fault kind %q (known: none, %v)", f, protocols.FaultKinds)
			}
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
	for i := range m.Rows {
		p, _ := protocols.Lookup(m.Rows[i][0].Protocol)
		for j := range m.Rows[i] {
			cells = append(cells, &m.Rows[i][j])
			fenced = append(fenced, protocols.IsFenced(p))
		}
	}

	// Seed-major order, so that early failures prune the most work.
	var jobs []matrixJob
	for s := range uint64(opt.Runs) {
		for ci, c := range cells {
			if c.Verdict == "" {
				jobs = append(jobs, matrixJob{cell: ci, seed: opt.FirstSeed + s})
			}
		}
	}
	firstFail := make([]atomic.Uint64, len(cells))
	for i := range firstFail {
		firstFail[i].Store(math.MaxUint64)
	}
	results := make([]runResult, len(jobs))
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range opt.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= len(jobs) {
					return
				}
				j := jobs[k]
				if j.seed > firstFail[j.cell].Load() {
					continue // a lower seed already failed
				}
				c := cells[j.cell]
				res := runResult{done: true}
				o, err := traces.Execute(matrixScenario(opt, c, j.seed))
				switch {
				case err != nil:
					res.err = err
				default:
					rep := o.File.Report
					res.unsafe, res.cause, res.detail = Judge(rep, fenced[j.cell])
					res.unknown = rep.Verdict == checker.VerdictUnknown
				}
				results[k] = res
				if res.unsafe || res.err != nil {
					for {
						cur := firstFail[j.cell].Load()
						if j.seed >= cur || firstFail[j.cell].CompareAndSwap(cur, j.seed) {
							break
						}
					}
				}
			}
		}()
	}
	wg.Wait()

	// Fold each cell's seeds in seed order.
	unknown := make([]bool, len(cells))
	for k, j := range jobs {
		r := results[k]
		c := cells[j.cell]
		if !r.done || c.Verdict == CellUnsafe || c.Verdict == CellError {
			continue
		}
		switch {
		case r.err != nil:
			seed := j.seed
			c.Verdict, c.Seed, c.Detail = CellError, &seed, r.err.Error()
		case r.unsafe:
			seed := j.seed
			c.Verdict, c.Seed, c.Cause, c.Detail = CellUnsafe, &seed, r.cause, r.detail
			c.Replay = replayCommand(opt, c, seed)
		case r.unknown:
			unknown[j.cell] = true
		}
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

// matrixScenario is the scenario of one matrix run.
func matrixScenario(opt MatrixOptions, c *Cell, seed uint64) protocols.Scenario {
	sc := protocols.Scenario{Seed: seed, Protocol: c.Protocol, Workload: opt.Workload, Clients: opt.Clients,
		Topology: c.Topology}
	if c.Fault != "none" {
		sc.FaultKinds = []string{c.Fault}
	}
	return sc
}

func replayCommand(opt MatrixOptions, c *Cell, seed uint64) string {
	clients := opt.Clients
	if clients == 0 {
		clients = 3
	}
	return fmt.Sprintf("locksim run --protocol %s --workload %s --seed %d --clients %d --faults %s --topology %s",
		c.Protocol, opt.Workload, seed, clients, c.Fault, c.Topology)
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
