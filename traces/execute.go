package traces

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
	o, err := Evaluate(sc)
	if err != nil {
		return nil, err
	}
	o.File.TraceSHA256 = o.File.Trace.Hash()
	return o, nil
}

// Evaluate is Execute without the trace hash, which exploration computes
// only for the traces it saves.
func Evaluate(sc protocols.Scenario) (*Outcome, error) {
	start := time.Now()
	sc, tr, err := protocols.Run(sc)
	if err != nil {
		return nil, err
	}
	res := checker.Check(tr, checkOptions(sc))
	f := &File{Format: FormatVersion, Scenario: sc, Report: res.Report, Trace: tr}
	return &Outcome{File: f, Result: res, Wall: time.Since(start)}, nil
}

// checkOptions is what the checker needs to know of a scenario.
func checkOptions(sc protocols.Scenario) checker.Options {
	return checker.Options{LeaseMs: sc.LeaseMs, InitialStock: sc.Stock}
}

// Recheck checks f's recorded trace again, without running anything: the
// trace must match its hash and the checker must reach f's report. It
// works on traces of protocols this binary does not know.
func Recheck(f *File) (*checker.Result, error) {
	if f == nil || f.Trace == nil {
		return nil, errors.New("no trace")
	}
	if got := f.Trace.Hash(); got != f.TraceSHA256 {
		return nil, fmt.Errorf("trace hash mismatch: the file's trace hashes to %s, its trace_sha256 is %s", shortHash(got), shortHash(f.TraceSHA256))
	}
	res := checker.Check(f.Trace, checkOptions(f.Scenario))
	got, err1 := json.Marshal(res.Report)
	want, err2 := json.Marshal(f.Report)
	if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
		return nil, errors.New("report mismatch: the file's report is not what its trace checks to")
	}
	return res, nil
}

func shortHash(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return h
}
