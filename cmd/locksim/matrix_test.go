package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/locksim/locksim/traces/explore"
)

func TestMatrixPrintsTableAndFirstFailures(t *testing.T) {
	code, out, errs := runCLI("matrix", "--runs", "3", "--protocols", "setnx-lua-del,local-mutex", "--faults", "none,gc-pause")
	if code != exitViolation {
		t.Fatalf("exit %d, want 1 (local-mutex is unsafe)\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		"protocol", "none", "gc-pause",
		"local-mutex", "unsafe@1",
		"rate < 63% at 95% confidence", "(the cell stops there)",
		"setnx-lua-del", "safe",
		"first failures:", "local-mutex / none (single), seed 1: mutual-exclusion: local-lock-only",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// With --rates an unsafe cell runs every seed and shows its rate.
func TestMatrixRatesRunsEverySeed(t *testing.T) {
	_, out, _ := runCLI("matrix", "--rates", "--runs", "3", "--protocols", "local-mutex", "--faults", "none")
	if !strings.Contains(out, "unsafe@1 100%") || strings.Contains(out, "stops there") {
		t.Errorf("output:\n%s", out)
	}
}

func TestMatrixJSON(t *testing.T) {
	code, out, _ := runCLI("matrix", "--json", "--runs", "2", "--protocols", "setnx-lua-del", "--faults", "none")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, out)
	}
	var ms []explore.Matrix
	if err := json.Unmarshal([]byte(out), &ms); err != nil || len(ms) != 1 {
		t.Fatal(err)
	}
	m := ms[0]
	c, ok := m.Cell("setnx-lua-del", "none")
	if !ok || c.Verdict != explore.CellSafe || m.Runs != 2 || c.Runs != 2 || m.Workload != "unique-name" {
		t.Fatalf("matrix %+v", m)
	}
}

func TestMatrixBadInputExitsTwo(t *testing.T) {
	for _, args := range [][]string{
		{"matrix", "--runs", "0"},
		{"matrix", "--protocols", "nope"},
		{"matrix", "--faults", "meteor"},
		{"matrix", "--workload", "nope"},
		{"matrix", "--clients", "0"},
		{"matrix", "extra"},
		{"matrix", "--bogus"},
	} {
		code, _, stderr := runCLI(args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "locksim matrix") {
			t.Errorf("%v: stderr %q, want one line", args, stderr)
		}
	}
}
