package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces"
)

func cmdReplay(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("replay", stdout)
	var out outputFlags
	out.register(fs)
	maxMB := registerMaxInput(fs)
	maxEvents := registerReplayBudget(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return usageErr(stderr, "replay", err)
	}
	if len(pos) != 1 {
		return usageErr(stderr, "replay", errors.New("want exactly one trace FILE"))
	}
	if err := checkOutputs(pos, out.trace, out.html); err != nil {
		return usageErr(stderr, "replay", err)
	}
	if err := checkReplayBudget(*maxEvents); err != nil {
		return usageErr(stderr, "replay", err)
	}
	f, err := readTrace(pos[0], *maxMB)
	if err != nil {
		return usageErr(stderr, "replay", err)
	}
	if _, err := f.Scenario.LookupProtocol(); err != nil {
		return usageErr(stderr, "replay", userScenario("protocol", f.Scenario.Protocol, pos[0]))
	}
	if _, err := protocols.LookupWorkload(f.Scenario.Workload); err != nil && f.Scenario.Workload != "" {
		return usageErr(stderr, "replay", userScenario("workload", f.Scenario.Workload, pos[0]))
	}
	if err := checkReplayCost(f.Scenario, *maxEvents, "replay", pos[0]); err != nil {
		return usageErr(stderr, "replay", err)
	}
	o, err := traces.Verify(f)
	if err != nil {
		return usageErr(stderr, "replay", fmt.Errorf("%s: %w", pos[0], err))
	}
	// The advice's commands run the file's scenario with their change.
	return finish(o, "locksim replay "+pos[0], origin{scenario: pos[0], base: f.Scenario}, out, stdout, stderr)
}

// locktestReplayFlag is locktest.ReplayFlag; the CLI does not link
// locktest (and its test dependencies), a test keeps the two equal.
const locktestReplayFlag = "locktest.replay"

// traceTestName reads the test name locktest puts in a trace's file name
// (<test>-<12 hex>.json).
var traceTestName = regexp.MustCompile(`^(.+)-[0-9a-f]{12}\.json$`)

// userScenario explains how to replay a trace of a protocol or workload
// (what, called name) that a Go test registered with locktest: only that
// test binary can run it.
func userScenario(what, name, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	run := "<TestName>"
	if m := traceTestName.FindStringSubmatch(filepath.Base(path)); m != nil {
		run = "'^" + regexp.QuoteMeta(m[1]) + "$'"
	}
	return fmt.Errorf("%s %q is not in locksim's catalog (a Go test registered it with locktest): replay the trace in that test's package with: go test -run %s -%s=%s (locksim view %s renders it)",
		what, name, run, locktestReplayFlag, abs, path)
}

// readTrace reads a trace file under the --max-input-mb cap; the reader
// checks its events against its hash.
func readTrace(path string, maxMB int64) (*traces.File, error) {
	limit, err := maxInputBytes(maxMB)
	if err != nil {
		return nil, err
	}
	return traces.ReadLimit(path, limit)
}
