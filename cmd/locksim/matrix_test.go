package main

import (
	"encoding/json"
	"fmt"
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
		"local-mutex", "unsafe 3/3 @1",
		"setnx-lua-del  <63%",
		"unsafe cells:", "local-mutex / none (single): unsafe: 3 of 3 runs (100%, 95% interval 44%-100%), first seed 1: mutual-exclusion: local-lock-only",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// --rates is accepted for old scripts: every cell runs all its seeds.
func TestMatrixRatesIsTheDefault(t *testing.T) {
	_, with, _ := runCLI("matrix", "--rates", "--runs", "3", "--protocols", "local-mutex", "--faults", "none")
	_, without, _ := runCLI("matrix", "--runs", "3", "--protocols", "local-mutex", "--faults", "none")
	if !strings.Contains(with, "unsafe 3/3 @1") || with != without {
		t.Errorf("with --rates:\n%s\nwithout:\n%s", with, without)
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

// matrix --verify's bounded verdict is `locksim verify`'s on the same
// cell with the same seed: --seed reaches it, so the two commands give
// the same answer (the same scope, placements and claim).
func TestMatrixVerifyIsVerifyAtTheSameSeed(t *testing.T) {
	cell := []string{"--protocols", "setnx-lua-del", "--faults", "reply-loss"}
	for _, seed := range []string{"5", "1"} {
		code, out, errs := runCLI(append([]string{"matrix", "--json", "--verify", "--runs", "2", "--seed", seed}, cell...)...)
		if code != exitOK {
			t.Fatalf("matrix --seed %s: exit %d\n%s%s", seed, code, out, errs)
		}
		var ms []explore.Matrix
		if err := json.Unmarshal([]byte(out), &ms); err != nil || len(ms) != 1 {
			t.Fatalf("matrix --seed %s: %v", seed, err)
		}
		c, ok := ms[0].Cell("setnx-lua-del", "reply-loss")
		if !ok || c.Bounded == nil {
			t.Fatalf("matrix --seed %s: no bounded verdict", seed)
		}
		code, out, errs = runCLI(append([]string{"verify", "--json", "--seed", seed}, cell...)...)
		if code != exitOK {
			t.Fatalf("verify --seed %s: exit %d\n%s%s", seed, code, out, errs)
		}
		var v explore.Verification
		if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Cells) != 1 {
			t.Fatalf("verify --seed %s: %v", seed, err)
		}
		got, want := *c.Bounded, v.Cells[0]
		got.WallMs, want.WallMs = 0, 0
		if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); g != w {
			t.Errorf("--seed %s: matrix --verify says\n  %s\nverify says\n  %s", seed, g, w)
		}
	}
}
