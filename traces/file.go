// Package traces holds the trace file format (scenario, events, histories,
// report, hash), running a scenario end to end, replay, the named
// reference scenarios and the committed corpus of canonical traces.
package traces

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// FormatVersion is the trace file format version this locksim writes and
// reads. Version 1: {format, locksim_version, scenario, trace, report,
// trace_sha256}.
const FormatVersion = 1

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
	lines := func(name string, n int, item func(i int) any) error {
		fmt.Fprintf(&buf, "  %q: [", name)
		for i := range n {
			b, err := json.Marshal(item(i))
			if err != nil {
				return err
			}
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString("\n   ")
			buf.Write(b)
		}
		if n > 0 {
			buf.WriteString("\n  ")
		}
		buf.WriteString("]")
		return nil
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
	if err := lines("events", len(t.Events), func(i int) any { return t.Events[i] }); err != nil {
		return nil, err
	}
	buf.WriteString(",\n")
	if err := lines("ops", len(t.Ops), func(i int) any { return t.Ops[i] }); err != nil {
		return nil, err
	}
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

// WriteAtomic writes data to path through a temporary file and a rename,
// so a reader never sees a half-written file.
func WriteAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(name, 0o644); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Read reads and validates a trace file.
func Read(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read trace: %w", err)
	}
	return Parse(b)
}

// Parse decodes and validates a trace file's bytes.
func Parse(b []byte) (*File, error) {
	var probe struct {
		Format *int `json:"format"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("not a locksim trace: %v", err)
	}
	switch {
	case probe.Format == nil:
		return nil, errors.New("not a locksim trace: no format field")
	case *probe.Format > FormatVersion:
		return nil, fmt.Errorf("trace format %d is newer than this locksim (reads %d): upgrade locksim", *probe.Format, FormatVersion)
	case *probe.Format < 1:
		return nil, fmt.Errorf("trace format %d is not valid", *probe.Format)
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("malformed trace: %v", err)
	}
	if f.Trace == nil {
		return nil, errors.New("malformed trace: no trace section")
	}
	if _, err := f.Scenario.Normalize(); err != nil {
		return nil, fmt.Errorf("malformed trace: scenario: %v", err)
	}
	return &f, nil
}
