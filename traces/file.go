// Package traces holds the trace file format (scenario, events, histories,
// report, hash), running a scenario end to end, replay, the named
// reference scenarios and the committed corpus of canonical traces.
package traces

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
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
	Trace       *sim.Trace         `json:"trace"`
}

// Write writes f to path atomically: a temporary file in the same
// directory, synced, then renamed over path.
func Write(path string, f *File) error {
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return err
	}
	return WriteAtomic(path, append(b, '\n'))
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
