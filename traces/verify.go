package traces

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/sim/trace"
)

// CheckHash verifies that a file's own scenario, events and operations
// are the ones its trace_sha256 names (Hash), so an edited, truncated or
// padded file is not trusted. A format 1 file's hash names its trace
// alone.
func CheckHash(f *File) error {
	if f.TraceSHA256 == "" {
		return fmt.Errorf("trace check failed: the file has no trace_sha256")
	}
	if f.Format == 1 {
		if got := f.Trace.Hash(); got != f.TraceSHA256 {
			return fmt.Errorf("trace check failed: hash mismatch: the file's events hash to %s, its trace_sha256 is %s (edited or corrupt)", short(got), short(f.TraceSHA256))
		}
	} else if got := Hash(f); got != f.TraceSHA256 {
		return fmt.Errorf("trace check failed: hash mismatch: the file's scenario and events hash to %s, its trace_sha256 is %s (edited or corrupt)", short(got), short(f.TraceSHA256))
	}
	if n := len(f.Trace.Events); f.Trace.Stats.Events != n {
		return fmt.Errorf("trace check failed: stats count %d events, the file has %d", f.Trace.Stats.Events, n)
	}
	return nil
}

// Verify re-runs a file's scenario and checks, in order, that the file's
// events match its hash, that the scenario reproduces that hash, and that
// the file's report is the checker's report of those events. It returns
// the fresh outcome, which a caller may then trust.
func Verify(f *File) (*Outcome, error) {
	if err := CheckHash(f); err != nil {
		return nil, err
	}
	if f.Format < FormatVersion {
		return nil, fmt.Errorf("trace format %d: its hash does not cover its scenario, so replay cannot trust it; record it again as format %d with: locksim run --scenario FILE --trace NEW.json", f.Format, FormatVersion)
	}
	o, err := Execute(f.Scenario)
	if err != nil {
		return nil, fmt.Errorf("scenario check failed: %w", err)
	}
	if !Replays(f, o.File) {
		return nil, fmt.Errorf("replay check failed: trace hash mismatch: recorded %s, replayed %s (the scenario no longer gives these events)", short(f.TraceSHA256), short(o.File.TraceSHA256))
	}
	if err := sameReport(f.Report, o.File.Report); err != nil {
		return nil, err
	}
	return o, nil
}

// Replays reports whether replayed, a fresh run of f's scenario, gave f's
// scenario and events: the same hash. For a format 1 file, whose hash is
// its trace's alone: the same trace, or, for one written before events
// carried fault ids (trace.Event.Fault), the same events once their ids
// are cleared.
func Replays(f, replayed *File) bool {
	if replayed.TraceSHA256 == f.TraceSHA256 {
		return true
	}
	if f.Format != 1 {
		return false
	}
	if replayed.Trace.Hash() == f.TraceSHA256 {
		return true
	}
	if slices.ContainsFunc(f.Trace.Events, func(e trace.Event) bool { return e.Fault != 0 }) {
		return false
	}
	bare := *replayed.Trace
	bare.Events = slices.Clone(bare.Events)
	for i := range bare.Events {
		bare.Events[i].Fault = 0
	}
	return bare.Hash() == f.TraceSHA256
}

// sameReport compares a file's report with the checker's report of its
// events.
func sameReport(r, g checker.Report) error {
	a, err1 := json.Marshal(r)
	b, err2 := json.Marshal(g)
	if err1 == nil && err2 == nil && bytes.Equal(a, b) {
		return nil
	}
	return fmt.Errorf("report check failed: report mismatch: the file's report says %s with %d violations, the checker finds %s with %d in its events",
		r.Verdict, len(r.Violations), g.Verdict, len(g.Violations))
}

func short(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return h
}
