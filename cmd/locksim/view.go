package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/explore"
	"github.com/locksim/locksim/traces/view"
)

// cmdView writes the HTML timeline of a trace file from its recorded
// trace, refusing a file whose events, hash and report do not agree.
func cmdView(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("view", stdout)
	out := fs.String("o", "", "write the HTML page to `FILE` (required)")
	fs.StringVar(out, "out", "", "same as -o")
	maxMB := registerMaxInput(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return usageErr(stderr, "view", err)
	}
	if len(pos) != 1 {
		return usageErr(stderr, "view", errors.New("want exactly one trace FILE (e.g. locksim view trace.json -o trace.html)"))
	}
	if *out == "" {
		return usageErr(stderr, "view", errors.New("-o OUT.html is required"))
	}
	if err := checkOutputs(pos, *out); err != nil {
		return usageErr(stderr, "view", err)
	}
	f, err := readTrace(pos[0], *maxMB)
	if err != nil {
		return usageErr(stderr, "view", err)
	}
	page, err := view.ViewFile(f)
	if err != nil {
		return usageErr(stderr, "view", fmt.Errorf("%s: %w", pos[0], err))
	}
	if err := traces.WriteAtomic(*out, page); err != nil {
		return usageErr(stderr, "view", err)
	}
	fmt.Fprintf(stdout, "wrote %s: %s / %s, seed %d, %s, %s\n",
		*out, f.Scenario.Protocol, f.Scenario.Workload, f.Scenario.Seed, f.Report.Verdict, explore.Plural(len(f.Report.Violations), "violation"))
	return exitOK
}
