package traces

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

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
	var ra, ga any
	json.Unmarshal(a, &ra)
	json.Unmarshal(b, &ga)
	return fmt.Errorf("report check failed: report mismatch: %s", firstDifference("", ra, ga))
}

// firstDifference says where two decoded JSON reports, the file's (a)
// and the checker's (b), first differ, in field order: "in violation 1,
// cause: the file says \"x\", the checker finds \"y\" in its events".
func firstDifference(at string, a, b any) string {
	where := ""
	if at != "" {
		where = at + ": "
	}
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			keys := make([]string, 0, len(x)+len(y))
			for k := range x {
				keys = append(keys, k)
			}
			for k := range y {
				if _, dup := x[k]; !dup {
					keys = append(keys, k)
				}
			}
			slices.SortFunc(keys, func(k1, k2 string) int {
				return cmp.Or(cmp.Compare(reportOrder(k1), reportOrder(k2)), strings.Compare(k1, k2))
			})
			for _, k := range keys {
				if !reflect.DeepEqual(x[k], y[k]) {
					return firstDifference(joinPath(at, k), x[k], y[k])
				}
			}
		}
	case []any:
		if y, ok := b.([]any); ok {
			if len(x) != len(y) {
				return fmt.Sprintf("%sthe file has %d, the checker finds %d in its events", where, len(x), len(y))
			}
			for i := range x {
				if !reflect.DeepEqual(x[i], y[i]) {
					return firstDifference(joinPath(at, strconv.Itoa(i+1)), x[i], y[i])
				}
			}
		}
	}
	return fmt.Sprintf("%sthe file says %s, the checker finds %s in its events", where, shortJSON(a), shortJSON(b))
}

// reportOrder ranks a report's fields as a reader looks at them: the
// verdict, the violations (each by property, cause and reason first),
// the damage; the rest by name.
func reportOrder(field string) int {
	for i, f := range []string{"verdict", "violations", "property", "cause", "reason", "key", "clients", "damage"} {
		if f == field {
			return i
		}
	}
	return 100
}

// joinPath names a field inside at: "violations 1" reads "violation 1".
func joinPath(at, field string) string {
	if at == "" {
		return field
	}
	if _, err := strconv.Atoi(field); err == nil {
		return strings.TrimSuffix(at, "s") + " " + field
	}
	return at + ", " + field
}

// shortJSON renders a JSON value in at most 60 characters.
func shortJSON(v any) string {
	if v == nil {
		return "nothing"
	}
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

func short(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return h
}
