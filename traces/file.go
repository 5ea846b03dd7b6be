// Package traces holds the trace file format (scenario, events, histories,
// report, hash), running a scenario end to end, replay, the named
// reference scenarios and the committed corpus of canonical traces.
package traces

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// FormatVersion is the trace file format version this locksim writes.
// Version 2: {format, scenario, report, trace_sha256, trace}, where
// trace_sha256 binds the scenario and the trace (Hash). Version 1 had the
// same fields, its trace_sha256 the trace's alone: such a file still
// reads (view, recheck, run --scenario), but replay refuses it, since
// its scenario could have been edited without the hash noticing.
const FormatVersion = 2

// Hash is a file's trace_sha256 (format 2): the hex SHA-256 of the line
// "locksim trace format 2", a newline, the scenario's JSON (json.Marshal
// of the decoded scenario: field order and spacing do not matter, every
// value does), a newline, and the trace's own hash (trace.Trace.Hash,
// the SHA-256 of its canonical JSON). An edited scenario or event
// changes it, so a doctored scenario fails before anything runs.
func Hash(f *File) string { return hashOf(f.Scenario, f.Trace.Hash()) }

// hashOf is Hash given the trace's hash.
func hashOf(sc protocols.Scenario, traceHash string) string {
	b, err := json.Marshal(sc)
	if err != nil {
		// A scenario json cannot write (NaN) binds nothing: no file hashes to this.
		return "unhashable scenario: " + err.Error()
	}
	h := sha256.New()
	fmt.Fprintf(h, "locksim trace format %d\n", FormatVersion)
	h.Write(b)
	fmt.Fprintf(h, "\n%s", traceHash)
	return hex.EncodeToString(h.Sum(nil))
}

// File is one trace file.
type File struct {
	Format      int                `json:"format"`
	Scenario    protocols.Scenario `json:"scenario"`
	Report      checker.Report     `json:"report"`
	TraceSHA256 string             `json:"trace_sha256"`
	Trace       *trace.Trace       `json:"trace"`
}

// Write writes f to path atomically: a temporary file in the same
// directory, synced, then renamed over path.
func Write(path string, f *File) error {
	b, err := Encode(f)
	if err != nil {
		return err
	}
	return WriteAtomic(path, b)
}

// Encode renders f as JSON with one event or operation per line, so that
// two traces diff line by line.
func Encode(f *File) ([]byte, error) {
	var buf bytes.Buffer
	field := func(name string, v any, indent bool) error {
		var b []byte
		var err error
		if indent {
			b, err = json.MarshalIndent(v, " ", " ")
		} else {
			b, err = json.Marshal(v)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(&buf, " %q: %s", name, b)
		return nil
	}
	lines := func(name string, n int, appendJSON func(dst []byte, i int) []byte) {
		fmt.Fprintf(&buf, "  %q: [", name)
		for i := range n {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString("\n   ")
			buf.Write(appendJSON(buf.AvailableBuffer(), i))
		}
		if n > 0 {
			buf.WriteString("\n  ")
		}
		buf.WriteString("]")
	}
	buf.WriteString("{\n")
	if err := field("format", f.Format, false); err != nil {
		return nil, err
	}
	buf.WriteString(",\n")
	if err := field("scenario", f.Scenario, false); err != nil {
		return nil, err
	}
	buf.WriteString(",\n")
	if err := field("report", f.Report, true); err != nil {
		return nil, err
	}
	buf.WriteString(",\n")
	if err := field("trace_sha256", f.TraceSHA256, false); err != nil {
		return nil, err
	}
	buf.WriteString(",\n \"trace\": {\n")
	t := f.Trace
	lines("events", len(t.Events), func(dst []byte, i int) []byte { return trace.AppendEventJSON(dst, &t.Events[i]) })
	buf.WriteString(",\n")
	lines("ops", len(t.Ops), func(dst []byte, i int) []byte { return trace.AppendOpJSON(dst, &t.Ops[i]) })
	buf.WriteString(",\n ")
	if err := field("scripts", t.Scripts, false); err != nil {
		return nil, err
	}
	buf.WriteString(",\n ")
	if err := field("stats", t.Stats, false); err != nil {
		return nil, err
	}
	buf.WriteString("\n }\n}\n")
	return buf.Bytes(), nil
}
