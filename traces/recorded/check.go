package recorded

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces"
)

// Formats.
const (
	FormatJSONL = "jsonl"
	FormatEDN   = "edn"
)

// FormatOf is the format of a history file named name: edn for .edn,
// jsonl otherwise (.jsonl, .json, standard input).
func FormatOf(name string) string {
	if strings.EqualFold(filepath.Ext(name), ".edn") {
		return FormatEDN
	}
	return FormatJSONL
}

// Read reads a history in format (jsonl or edn).
func Read(r io.Reader, format string) (*History, error) {
	switch format {
	case FormatJSONL:
		return ReadJSONL(r)
	case FormatEDN:
		return ReadEDN(r)
	}
	return nil, fmt.Errorf("unknown format %q (jsonl or edn)", format)
}

// Processes counts the processes of h.
func (h *History) Processes() int {
	seen := map[string]bool{}
	for _, e := range h.Events {
		seen[e.Process] = true
	}
	return len(seen)
}

// Check checks h with the checker of simulated runs and returns it as an
// outcome: a trace file whose scenario names the history (protocol
// "recorded", workload the file's base name) and holds its lease, the processes as
// clients. The outcome prints and draws as a run's does.
func Check(h *History, name string) (*traces.Outcome, error) {
	start := time.Now()
	tr, leaseMs, err := Trace(h)
	if err != nil {
		return nil, err
	}
	res := checker.Check(tr, checker.Options{LeaseMs: leaseMs})
	sc := protocols.Scenario{Protocol: "recorded", Workload: filepath.Base(name), Clients: h.Processes(), LeaseMs: leaseMs}
	f := &traces.File{Format: traces.FormatVersion, Scenario: sc, Report: res.Report, Trace: tr}
	f.TraceSHA256 = tr.Hash()
	return &traces.Outcome{File: f, Result: res, Wall: time.Since(start)}, nil
}
