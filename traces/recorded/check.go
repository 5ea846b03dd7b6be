package recorded

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
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

// Read reads a history in format (jsonl or edn). Its operations may wait
// in a temporary file: Close the history when done with it.
func Read(r io.Reader, format string) (*History, error) {
	switch format {
	case FormatJSONL:
		return ReadJSONL(r)
	case FormatEDN:
		return ReadEDN(r)
	}
	return nil, fmt.Errorf("unknown format %q (jsonl or edn)", format)
}

// Check checks h with the checker of simulated runs and returns it as an
// outcome: a trace file whose scenario names the history (protocol
// "recorded", workload the file's base name) and holds its lease, the
// processes as clients. The outcome prints as a run's does.
//
// Each group of keys is checked apart: the keys one process touched are
// in one group, and so are the processes that touched one key, so no
// client and no key of one group is in another, and every property the
// checker judges (a lock's holds, a holder's writes, a key's data) lies
// within one group. The groups are read back from h's spool a few at a
// time, checked, and let go: the memory this takes grows with the largest
// group, not with the history. The report is the groups' reports merged
// (checker.MergeReports). When h is one group, the outcome is CheckWhole's;
// otherwise its File.Trace holds only the statistics, Result is nil, and
// the violations cite no trace events (Violation.Events): the timeline
// needs CheckForView.
func Check(h *History, name string) (*traces.Outcome, error) {
	start := time.Now()
	groups, of := h.groups()
	if len(groups) == 1 {
		return h.checkWhole(name, start)
	}
	reports, events, err := h.checkGroups(groups, of)
	if err != nil {
		return nil, err
	}
	return h.merged(name, reports, events, start), nil
}

// checkGroups checks each group apart, a few at a time, and returns
// their reports and the number of their traces' events.
func (h *History) checkGroups(groups []group, of []int) ([]checker.Report, int, error) {
	reports := make([]checker.Report, len(groups))
	events := 0
	for first := 0; first < len(groups); {
		// One pass over the spool: the next groups up to passBytes of
		// records (at least one group).
		last, size := first, 0
		for last < len(groups) && (last == first || size+groups[last].bytes <= h.pass) {
			size += groups[last].bytes
			last++
		}
		ops := make([][]op, last-first)
		for g := first; g < last; g++ {
			ops[g-first] = make([]op, 0, groups[g].ops)
		}
		err := h.read(func(key int32) bool { g := of[key]; return g >= first && g < last }, func(o *op) {
			g := of[o.key] - first
			ops[g] = append(ops[g], *o)
		})
		if err != nil {
			return nil, 0, err
		}
		for g := first; g < last; g++ {
			tr := h.trace(ops[g-first])
			ops[g-first] = nil
			r := checker.Check(tr, h.options()).Report
			for i := range r.Violations {
				r.Violations[i].Events = nil // indexes into the group's trace, which is let go
			}
			reports[g] = r
			events += len(tr.Events)
		}
		first = last
	}
	return reports, events, nil
}

// read calls fn with every operation whose key keep accepts, in the
// order spooled.
func (h *History) read(keep func(key int32) bool, fn func(o *op)) error {
	if err := h.spool.each(keep, fn); err != nil {
		return &Error{Msg: "reading the spooled operations back: " + err.Error()}
	}
	return nil
}

// merged is the outcome of h's groups' reports: the statistics, no trace.
func (h *History) merged(name string, reports []checker.Report, events int, start time.Time) *traces.Outcome {
	f := &traces.File{Format: traces.FormatVersion, Scenario: h.scenario(name), Report: checker.MergeReports(reports),
		Trace: &trace.Trace{Stats: trace.Stats{SimNs: h.tEnd - h.t0, Events: events}}}
	return &traces.Outcome{File: f, Wall: time.Since(start)}
}

// ViewOps is the most operations CheckForView draws whole.
const ViewOps = 50_000

// CheckForView checks h as Check does, and returns with its outcome (the
// same, so check prints the same with --html as without) the outcome the
// timeline draws. A history of up to ViewOps operations, or of one group
// of keys, is drawn whole (CheckWhole's). A larger one is drawn in part,
// as a page of it all would be hundreds of megabytes: the groups of keys
// with a finding (a violation, or a check that ran out of budget), every
// violation with all it involves; when no group has one, the first groups
// up to ViewOps operations. Its Partial says what is left out.
func CheckForView(h *History, name string) (text, page *traces.Outcome, err error) {
	start := time.Now()
	groups, of := h.groups()
	if len(groups) == 1 {
		o, err := h.checkWhole(name, start)
		return o, o, err
	}
	reports, events, err := h.checkGroups(groups, of)
	if err != nil {
		return nil, nil, err
	}
	text = h.merged(name, reports, events, start)
	if h.ops <= ViewOps {
		page, err = h.checkWhole(name, start)
		return text, page, err
	}
	drawn, ops := make([]bool, len(groups)), 0
	for g, r := range reports {
		if drawn[g] = r.Verdict != checker.VerdictOK; drawn[g] {
			ops += groups[g].ops
		}
	}
	found := ops > 0
	for g := 0; !found && g < len(groups) && (ops == 0 || ops+groups[g].ops <= ViewOps); g++ {
		drawn[g], ops = true, ops+groups[g].ops
	}
	part := make([]op, 0, ops)
	if err := h.read(func(key int32) bool { return drawn[of[key]] }, func(o *op) { part = append(part, *o) }); err != nil {
		return nil, nil, err
	}
	page = h.outcome(name, part, start)
	n := 0
	for _, d := range drawn {
		if d {
			n++
		}
	}
	which := "those with a violation or an unknown result"
	if !found {
		which = "the first ones, as no group has a violation or an unknown result"
	}
	page.Partial = fmt.Sprintf("the timeline draws %d of the %d groups of keys (%d of %d operations), %s; the other %d groups are left out of it (see docs/check.md)",
		n, len(groups), ops, h.ops, which, len(groups)-n)
	return text, page, nil
}

// passBytes is how many bytes of spooled records one pass of Check
// takes into memory, unless one group alone is larger.
const passBytes = 1 << 20

// CheckWhole checks h as one trace, every key together: the outcome
// holds the trace and the checker's result, for the timeline, and its
// memory grows with the history.
func CheckWhole(h *History, name string) (*traces.Outcome, error) {
	return h.checkWhole(name, time.Now())
}

func (h *History) checkWhole(name string, start time.Time) (*traces.Outcome, error) {
	ops := make([]op, 0, h.ops)
	if err := h.read(func(int32) bool { return true }, func(o *op) { ops = append(ops, *o) }); err != nil {
		return nil, err
	}
	return h.outcome(name, ops, start), nil
}

// outcome checks ops, operations of h, as one trace.
func (h *History) outcome(name string, ops []op, start time.Time) *traces.Outcome {
	tr := h.trace(ops)
	res := checker.Check(tr, h.options())
	f := &traces.File{Format: traces.FormatVersion, Scenario: h.scenario(name), Report: res.Report, Trace: tr}
	f.TraceSHA256 = tr.Hash()
	return &traces.Outcome{File: f, Result: res, Wall: time.Since(start)}
}

// options are the checker's options for h's traces.
func (h *History) options() checker.Options {
	return checker.Options{LeaseMs: h.leaseMs, History: true, Precision: h.Precision()}
}

func (h *History) scenario(name string) protocols.Scenario {
	// One lease for the whole history only when its acquires agree (the
	// timeline's header shows it); each hold is judged by its own.
	lease := h.leaseMs
	if h.leaseMin != h.leaseMax {
		lease = 0
	}
	return protocols.Scenario{Protocol: "recorded", Workload: filepath.Base(name), Clients: h.procs, LeaseMs: lease}
}

// group is one group of keys checked together: its operations and the
// size of their records.
type group struct{ ops, bytes int }

// groups are h's groups of keys, in order of their first key's first
// sight, and the index of each key's group by node (-1: a process).
func (h *History) groups() ([]group, []int) {
	of := make([]int, len(h.names))
	byRoot := map[int32]int{}
	var gs []group
	for n := range h.names {
		if !h.isKey[n] {
			of[n] = -1
			continue
		}
		r := h.root(int32(n))
		g, ok := byRoot[r]
		if !ok {
			g = len(gs)
			byRoot[r] = g
			gs = append(gs, group{})
		}
		of[n] = g
		gs[g].ops += h.keyOps[n]
		gs[g].bytes += h.keyBytes[n]
	}
	return gs, of
}
