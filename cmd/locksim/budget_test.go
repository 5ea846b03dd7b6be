package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestEventBudgetEndsARunAsUnknownDeterministically: --max-events stops a
// run at the same event every time, as unknown with the budget named; the
// trace file carries the budget, so replay reproduces it.
func TestEventBudgetEndsARunAsUnknownDeterministically(t *testing.T) {
	dir := t.TempDir()
	var hashes []string
	for i := range 2 {
		p := filepath.Join(dir, []string{"a.json", "b.json"}[i])
		code, out, stderr := runCLI("run", "--protocol", "setnx-del", "--faults", "gc-pause", "--max-events", "60", "--json", "--trace", p)
		var s struct {
			Verdict, Budget string
			TraceSHA256     string `json:"trace_sha256"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil || code != exitUnknown {
			t.Fatalf("exit %d (%v): %s%s", code, err, out, stderr)
		}
		if s.Verdict != "unknown" || !strings.HasPrefix(s.Budget, "budget exceeded: events") {
			t.Fatalf("verdict %q, budget %q", s.Verdict, s.Budget)
		}
		hashes = append(hashes, s.TraceSHA256)
		if code, out, stderr := runCLI("replay", p); code != exitUnknown || !strings.Contains(out, "budget exceeded") {
			t.Fatalf("replay: exit %d %s%s", code, out, stderr)
		}
	}
	if hashes[0] != hashes[1] {
		t.Fatalf("same budget, different traces: %s %s", hashes[0], hashes[1])
	}
	// Without the budget the same scenario runs to its end.
	if code, out, _ := runCLI("run", "--protocol", "setnx-del", "--faults", "gc-pause"); code == exitUnknown || strings.Contains(out, "budget") {
		t.Fatalf("default budget stopped a small run: %s", out)
	}
}
