package traces

import (
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
)

// Outcome is a scenario run end to end: the trace file and the checker's
// full result (for the linearization view).
type Outcome struct {
	File   *File
	Result *checker.Result
	Wall   time.Duration
}

// Execute runs sc in the sim and checks the trace.
func Execute(sc protocols.Scenario) (*Outcome, error) {
	o, err := execute(sc)
	if err != nil {
		return nil, err
	}
	o.File.TraceSHA256 = o.File.Trace.Hash()
	return o, nil
}

// execute is Execute without the trace hash, which exploration computes
// only for the traces it saves.
func execute(sc protocols.Scenario) (*Outcome, error) {
	start := time.Now()
	sc, tr, err := protocols.Run(sc)
	if err != nil {
		return nil, err
	}
	p, err := protocols.Lookup(sc.Protocol)
	if err != nil {
		return nil, err
	}
	res := checker.Check(tr, checker.Options{LeaseMs: sc.LeaseMs, InitialStock: sc.Stock, AllSites: p.AllMasters})
	f := &File{Format: FormatVersion, Scenario: sc, Report: res.Report, Trace: tr}
	return &Outcome{File: f, Result: res, Wall: time.Since(start)}, nil
}
