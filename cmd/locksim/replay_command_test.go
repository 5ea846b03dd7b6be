package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/explore"
)

// shellWords splits a printed command as a POSIX shell would split the
// words ShellJoin writes (plain words and single-quoted ones).
func shellWords(t *testing.T, cmd string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range cmd {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			cur.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quote in %q", cmd)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// runPrinted executes a printed replay command through Main, in process,
// and returns the trace hash it reports.
func runPrinted(t *testing.T, cmd string) string {
	t.Helper()
	w := shellWords(t, cmd)
	if len(w) < 2 || w[0] != "locksim" || w[1] != "run" && w[1] != "replay" {
		t.Fatalf("not a locksim run or replay command: %q", cmd)
	}
	_, out, stderr := runCLI(append(w[1:], "--json")...)
	var s struct {
		TraceSHA256 string `json:"trace_sha256"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.TraceSHA256 == "" {
		t.Fatalf("%s: no JSON with a trace hash (%v): %s%s", cmd, err, out, stderr)
	}
	return s.TraceSHA256
}

func savedHash(t *testing.T, path string) string {
	t.Helper()
	f, err := traces.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return f.TraceSHA256
}

// TestPrintedReplayCommandsReproduceFoundTraces runs explore (with every
// scenario-shaping flag away from its default), merge, shrink and matrix,
// and runs each replay command they print: each gives the hash of the
// trace it was printed for.
func TestPrintedReplayCommandsReproduceFoundTraces(t *testing.T) {
	dir := t.TempDir()
	explores := [][]string{
		{"--protocol", "setnx-del", "--faults", "gc-pause", "--clients", "4", "--intensity", "2", "--runs", "12"},
		{"--protocol", "local-mutex", "--workload", "stock", "--stagger-ms", "1", "--runs", "3"},
		{"--protocol", "setnx-lua-del", "--faults", "clock-jump", "--topology", "replicated", "--ops", "2", "--think-ms", "50", "--runs", "30"},
	}
	checked := 0
	var outs []string
	for i, args := range explores {
		out := filepath.Join(dir, string(rune('a'+i)))
		outs = append(outs, out)
		code, stdout, stderr := runCLI(append([]string{"explore", "--json", "--out", out}, args...)...)
		var s explore.Summary
		if err := json.Unmarshal([]byte(stdout), &s); err != nil || code != exitViolation || len(s.Causes) == 0 {
			t.Fatalf("explore %v: exit %d, %v: %s%s", args, code, err, stdout, stderr)
		}
		for _, c := range s.Causes {
			if got, want := runPrinted(t, c.Replay), savedHash(t, c.Trace); got != want {
				t.Errorf("explore %v, %s: %q gives %s, the saved trace is %s", args, c.Cause, c.Replay, got[:12], want[:12])
			}
			checked++
		}
	}

	code, stdout, _ := runCLI("merge", "--json", outs[0])
	var m explore.Summary
	if err := json.Unmarshal([]byte(stdout), &m); err != nil || code != exitViolation {
		t.Fatalf("merge: exit %d %v", code, err)
	}
	for _, c := range m.Causes {
		if got, want := runPrinted(t, c.Replay), savedHash(t, c.Trace); got != want {
			t.Errorf("merge, %s: %q does not reproduce", c.Cause, c.Replay)
		}
		checked++
	}

	min := filepath.Join(dir, "min.json")
	code, stdout, stderr := runCLI("shrink", filepath.Join(outs[0], "mutual-exclusion-premature-expiry.json"), "-o", min, "--budget", "60")
	_, replay, ok := strings.Cut(stdout, "replay: ")
	// A shrunk schedule keeps its anchored faults, which no --fault flag
	// expresses: its command may replay the file.
	if code != exitViolation || !ok || !strings.HasPrefix(replay, "locksim run ") && !strings.HasPrefix(replay, "locksim replay ") {
		t.Fatalf("shrink: exit %d, no run command: %s%s", code, stdout, stderr)
	}
	if got, want := runPrinted(t, strings.TrimSpace(replay)), savedHash(t, min); got != want {
		t.Errorf("shrink: %q does not reproduce the shrunk trace", replay)
	}

	code, stdout, _ = runCLI("matrix", "--json", "--runs", "12", "--protocols", "setnx-del,redlock,local-mutex",
		"--faults", "gc-pause,clock-jump", "--workload", "stock", "--clients", "2")
	var mxs []explore.Matrix
	if err := json.Unmarshal([]byte(stdout), &mxs); err != nil || code != exitViolation || len(mxs) != 1 {
		t.Fatalf("matrix: exit %d %v", code, err)
	}
	mx := mxs[0]
	for _, row := range mx.Rows {
		for _, c := range row {
			if c.Verdict != explore.CellUnsafe {
				continue
			}
			if got := runPrinted(t, c.Replay); got != c.TraceSHA256 {
				t.Errorf("matrix %s/%s: %q does not reproduce", c.Protocol, c.Fault, c.Replay)
			}
			checked++
		}
	}
	code, stdout, _ = runCLI("verify", "--json", "--protocols", "setnx-del,setnx-lua-del", "--faults", "gc-pause,failover")
	var v explore.Verification
	if err := json.Unmarshal([]byte(stdout), &v); err != nil || code != exitViolation {
		t.Fatalf("verify: exit %d %v", code, err)
	}
	for _, c := range v.Cells {
		if c.Verdict != explore.CellUnsafe {
			continue
		}
		if got := runPrinted(t, c.Replay); got != c.TraceSHA256 {
			t.Errorf("verify %s/%s: %q does not reproduce", c.Protocol, c.Fault, c.Replay)
		}
		checked++
	}
	if checked < 8 {
		t.Fatalf("only %d replay commands checked", checked)
	}
}
