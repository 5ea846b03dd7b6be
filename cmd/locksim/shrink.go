package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/explore"
)

func cmdShrink(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("shrink", stdout)
	out := fs.String("o", "", "write the minimal trace to `FILE` (default: FILE.min.json)")
	budget := fs.Int("budget", 500, "maximum number `N` of runs, 1 to 100000")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	maxMB := registerMaxInput(fs)
	maxEvents := registerReplayBudget(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return usageErr(stderr, "shrink", err)
	}
	if len(pos) != 1 {
		return usageErr(stderr, "shrink", errors.New("want exactly one trace FILE"))
	}
	if *budget < 1 || *budget > 100000 {
		return usageErr(stderr, "shrink", errors.New("--budget must be between 1 and 100000"))
	}
	if err := checkReplayBudget(*maxEvents); err != nil {
		return usageErr(stderr, "shrink", err)
	}
	dest := *out
	if dest == "" {
		dest = strings.TrimSuffix(pos[0], ".json") + ".min.json"
	}
	if err := checkOutputs(pos, dest); err != nil {
		return usageErr(stderr, "shrink", err)
	}
	f, err := readTrace(pos[0], *maxMB)
	if err != nil {
		return usageErr(stderr, "shrink", err)
	}
	if err := checkReplayCost(f.Scenario, *maxEvents, "shrink", pos[0]); err != nil {
		return usageErr(stderr, "shrink", err)
	}
	// The report must be what the checker finds in the file's own events:
	// a claimed violation the scenario does not have is refused here.
	if _, err := traces.Verify(f); err != nil {
		return usageErr(stderr, "shrink", fmt.Errorf("%s: %w", pos[0], err))
	}
	r, err := explore.Shrink(f, *budget)
	if err != nil {
		return usageErr(stderr, "shrink", fmt.Errorf("%s: %w", pos[0], err))
	}
	if err := traces.Write(dest, r.File); err != nil {
		return usageErr(stderr, "shrink", err)
	}
	if *asJSON {
		b, _ := json.MarshalIndent(map[string]any{"property": r.Property, "cause": r.Cause, "before": r.Before,
			"after": r.After, "runs": r.Runs, "trace": dest, "faults": r.File.Scenario.Faults}, "", "  ")
		fmt.Fprintln(stdout, string(b))
		return exitViolation
	}
	fmt.Fprintf(stdout, "shrunk %s (%s) in %s\n  before: %s\n  after:  %s\n",
		r.Property, r.Cause, explore.Plural(r.Runs, "run"), r.Before, r.After)
	printFaults(stdout, r.File, "    ")
	fmt.Fprintf(stdout, "  wrote %s\n  replay: %s\n", dest, explore.ReplayCommand(r.File.Scenario, dest))
	return exitViolation
}
