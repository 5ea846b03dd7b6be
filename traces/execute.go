package traces

import (
	"errors"
	"fmt"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// ErrInternal marks an error that is a bug in locksim (a panic in the
// checker or the runner), not a problem with the scenario.
var ErrInternal = errors.New("internal error")

// IsInternal reports whether err is a bug in locksim or in the simulated
// lock code rather than bad input.
func IsInternal(err error) bool {
	return errors.Is(err, ErrInternal) || errors.Is(err, sim.ErrPanic)
}

// Outcome is a scenario run end to end: the trace file and the checker's
// full result (for the linearization view).
type Outcome struct {
	File   *File
	Result *checker.Result
	Wall   time.Duration
	// Partial says what File.Trace leaves out of the run or history it
	// stands for (the timeline says it); "" when nothing.
	Partial string
}

// Execute runs sc in the sim and checks the trace.
func Execute(sc protocols.Scenario) (*Outcome, error) {
	return evaluate(sc, true, nil)
}

// Evaluate is Execute without the trace hash, which exploration computes
// only for the traces it saves.
func Evaluate(sc protocols.Scenario) (*Outcome, error) {
	return evaluate(sc, false, nil)
}

// EvaluatePooled is Evaluate with the run's Redis stores and coroutines
// taken from pool and given back to it.
func EvaluatePooled(sc protocols.Scenario, pool *sim.Pool) (*Outcome, error) {
	return evaluate(sc, false, pool)
}

func evaluate(sc protocols.Scenario, hash bool, pool *sim.Pool) (o *Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			o, err = nil, fmt.Errorf("%w: %v", ErrInternal, r)
		}
	}()
	start := time.Now()
	sc, tr, err := protocols.RunPooled(sc, pool)
	if err != nil {
		return nil, err
	}
	res := check(tr, sc, nil)
	f := &File{Format: FormatVersion, Scenario: sc, Report: res.Report, Trace: tr}
	if hash {
		f.TraceSHA256 = Hash(f)
	}
	return &Outcome{File: f, Result: res, Wall: time.Since(start)}, nil
}

// check checks tr, a run of sc; recorded is the report of the file tr
// was read from, if any. The checker decides the verdict (a run a budget
// or the horizon stopped included).
func check(tr *trace.Trace, sc protocols.Scenario, recorded *checker.Report) *checker.Result {
	opt := checkOptions(sc)
	opt.Recorded = recorded
	return checker.Check(tr, opt)
}

// Fails reports whether the outcome fails under policy p (--fail-on):
// the checker's decision.
func (o *Outcome) Fails(p checker.FailOn) bool { return o.File.Report.Fails(p) }

// checkOptions is what the checker needs to know of a scenario.
func checkOptions(sc protocols.Scenario) checker.Options {
	opt := checker.Options{LeaseMs: sc.LeaseMs, InitialStock: sc.Stock, Liveness: sc.Liveness, Faults: sc.Faults}
	if p, err := sc.LookupProtocol(); err == nil {
		opt.AllSites = p.AllMasters
	}
	if wl, err := protocols.LookupWorkload(sc.Workload); err == nil && wl.Spec != nil {
		opt.Specs = []model.Spec{*wl.Spec}
	}
	return opt
}

// Recheck checks f's recorded trace again, without running anything: the
// trace must match its hash and the checker must reach f's report. It
// works on traces of protocols and workloads this binary does not know;
// the check of a user's resource whose model.Spec is not registered here
// (a locktest's) is kept as f records it.
func Recheck(f *File) (*checker.Result, error) {
	if f == nil || f.Trace == nil {
		return nil, errors.New("no trace")
	}
	if err := CheckHash(f); err != nil {
		return nil, err
	}
	res := check(f.Trace, f.Scenario, &f.Report)
	if err := sameReport(f.Report, res.Report); err != nil {
		return nil, err
	}
	return res, nil
}
