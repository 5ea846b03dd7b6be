package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/locksim/locksim/traces"
)

// A trace whose scenario was doctored to the scenario limits (1,000
// clients x 64 threads x 100,000 ops) is refused with exit 2 and one
// line, without running it, by every command that runs a trace's
// scenario (replay, shrink, run --scenario): edited in place, by the
// hash; with the hash recomputed, by the replay budget, which names
// --max-events.
func TestDoctoredScenarioReplayIsRefusedBeforeRunning(t *testing.T) {
	dir := t.TempDir()
	committed := filepath.Join("..", "..", "traces", "corpus", "pause-no-fencing.json")
	b, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	doctored := bytes.Replace(b, []byte(`"clients":2,"threads":1,"ops":1,`), []byte(`"clients":1000,"threads":64,"ops":100000,`), 1)
	if bytes.Equal(doctored, b) {
		t.Fatal("the corpus trace no longer has the scenario this test edits")
	}
	edited := filepath.Join(dir, "edited.json")
	os.WriteFile(edited, doctored, 0o644)
	rerun := func(path string) [][]string {
		return [][]string{{"replay", path}, {"shrink", path, "-o", filepath.Join(dir, "min.json")}, {"run", "--scenario", path}}
	}
	for _, args := range rerun(edited) {
		code, out, stderr := runCLI(args...)
		if code != exitUsage || out != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "hash mismatch: the file's scenario and events") {
			t.Fatalf("edited scenario, %s: exit %d, %q %q", args[0], code, out, stderr)
		}
	}

	f, err := traces.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	f.Scenario.Clients, f.Scenario.Threads, f.Scenario.Ops = 1000, 64, 100000
	f.TraceSHA256 = traces.Hash(f)
	forged := filepath.Join(dir, "forged.json")
	if err := traces.Write(forged, f); err != nil {
		t.Fatal(err)
	}
	for _, args := range rerun(forged) {
		code, out, stderr := runCLI(args...)
		if code != exitUsage || out != "" || strings.Count(stderr, "\n") != 1 ||
			!strings.Contains(stderr, forged+": the trace's scenario (1000 clients x 64 threads x 100000 ops") || !strings.Contains(stderr, "--max-events") {
			t.Fatalf("forged scenario, %s: exit %d, %q %q", args[0], code, out, stderr)
		}
	}
}

// The budget is a flag: a trace over a lowered budget is refused naming
// it, and replays at the default.
func TestReplayBudgetFlag(t *testing.T) {
	committed := filepath.Join("..", "..", "traces", "corpus", "pause-no-fencing.json")
	code, _, stderr := runCLI("replay", "--max-events", "100", committed)
	if code != exitUsage || !strings.Contains(stderr, "over replay's budget of 100") || !strings.Contains(stderr, "--max-events") {
		t.Fatalf("lowered budget: exit %d, %q", code, stderr)
	}
	if code, out, stderr := runCLI("replay", committed); code != exitViolation {
		t.Fatalf("default budget: exit %d, %s%s", code, out, stderr)
	}
	// The budget the refusal names is enough: replay and shrink at it run.
	m := regexp.MustCompile(`raise it with --max-events (\d+) `).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("the refusal names no budget to raise to: %q", stderr)
	}
	if code, out, stderr := runCLI("replay", committed, "--max-events", m[1]); code != exitViolation || !strings.Contains(out, "replayed: the same") {
		t.Fatalf("replay at the named budget %s: exit %d, %s%s", m[1], code, out, stderr)
	}
	if code, out, stderr := runCLI("shrink", "--max-events", m[1], committed, "-o", filepath.Join(t.TempDir(), "min.json")); code == exitUsage {
		t.Fatalf("shrink at the named budget %s: exit %d, %s%s", m[1], code, out, stderr)
	}
	if code, _, stderr := runCLI("replay", "--max-events", "0", committed); code != exitUsage || !strings.Contains(stderr, "--max-events must be") {
		t.Fatalf("--max-events 0: exit %d, %q", code, stderr)
	}
}
