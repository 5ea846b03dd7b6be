package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/view"
)

// cmdView writes the HTML timeline of a trace file. It re-runs the file's
// scenario to obtain porcupine's linearization (the page's second tab) and
// refuses a file whose scenario no longer reproduces its trace hash.
func cmdView(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("view")
	out := fs.String("o", "", "write the HTML page to `FILE` (required)")
	fs.StringVar(out, "out", "", "same as -o")
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
	f, err := traces.Read(pos[0])
	if err != nil {
		return usageErr(stderr, "view", err)
	}
	page, err := view.ViewFile(f)
	if err != nil {
		return usageErr(stderr, "view", err)
	}
	if err := traces.WriteAtomic(*out, page); err != nil {
		return usageErr(stderr, "view", err)
	}
	fmt.Fprintf(stdout, "wrote %s: %s / %s, seed %d, %s, %d violations\n",
		*out, f.Scenario.Protocol, f.Scenario.Workload, f.Scenario.Seed, f.Report.Verdict, len(f.Report.Violations))
	return exitOK
}
