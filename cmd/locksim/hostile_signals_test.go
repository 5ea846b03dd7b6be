package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startExplore starts a long explore writing out and returns once it
// handles signals (it writes its pid into the lock file then).
func startExplore(t *testing.T, bin, out string) (*exec.Cmd, <-chan error, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, "explore", "--protocol", "setnx-lua-del", "--runs", "1000000000", "--workers", "1", "--out", out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	lock := filepath.Join(out, ".locksim.lock")
	for {
		if b, err := os.ReadFile(lock); err == nil && len(b) > 0 {
			return cmd, done, &stdout, &stderr
		}
		select {
		case err := <-done:
			t.Fatalf("explore ended early: %v %s", err, stderr.String())
		case <-time.After(10 * time.Millisecond): // polling for readiness, not a timed assertion
		}
	}
}

// TestExploreSignalsWritePartialSummary: SIGTERM (a cancelled CI or
// Kubernetes shard) and SIGINT both end explore with a partial summary on
// stdout and in --out, and exit 0 when nothing was found.
func TestExploreSignalsWritePartialSummary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin, _ := hostileSetup(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		out := filepath.Join(t.TempDir(), "out")
		cmd, done, stdout, stderr := startExplore(t, bin, out)
		cmd.Process.Signal(sig)
		err := <-done
		if err != nil {
			t.Fatalf("%v: %v\n%s", sig, err, stderr)
		}
		if !strings.Contains(stdout.String(), "interrupted: partial summary") {
			t.Errorf("%v: stdout %q", sig, stdout)
		}
		b, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatalf("%v: no summary: %v", sig, err)
		}
		var s struct {
			Interrupted bool `json:"interrupted"`
			Runs        int  `json:"runs"`
		}
		if err := json.Unmarshal(b, &s); err != nil || !s.Interrupted {
			t.Errorf("%v: summary %s (%v)", sig, b, err)
		}
		leftovers, _ := filepath.Glob(filepath.Join(out, ".*.tmp*"))
		if len(leftovers) > 0 {
			t.Errorf("%v: temporary files left: %v", sig, leftovers)
		}
	}
}

// TestOutDirectoryHasOneOwner: a second explore on a busy --out is refused
// with one line and changes nothing there; the first one finishes intact.
func TestOutDirectoryHasOneOwner(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin, _ := hostileSetup(t)
	out := filepath.Join(t.TempDir(), "out")
	first, done, _, stderr := startExplore(t, bin, out)
	before := snapshot(t, out)
	for _, args := range [][]string{
		{"explore", "--protocol", "setnx-del", "--faults", "gc-pause", "--runs", "5", "--out", out},
		{"explore", "--protocol", "redlock", "--runs", "5", "--out", out + "/"},
	} {
		code, _, msg := runBin(t, bin, args...)
		if code != exitUsage || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "in use by another explore") {
			t.Errorf("%v: exit %d, stderr %q", args, code, msg)
		}
	}
	after := snapshot(t, out)
	for p, v := range before {
		if after[p] != v {
			t.Errorf("second explore changed %s", p)
		}
	}
	first.Process.Signal(syscall.SIGTERM)
	if err := <-done; err != nil {
		t.Fatalf("first explore: %v %s", err, stderr)
	}
	var s struct{ Protocol string }
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if json.Unmarshal(b, &s); s.Protocol != "setnx-lua-del" {
		t.Errorf("summary %s", b)
	}
	// Once it is done, the directory is free again: refused as used
	// (it holds that explore's summary), taken with --force.
	if code, _, msg := runBin(t, bin, "explore", "--protocol", "setnx-lua-del", "--runs", "2", "--out", out); code != exitUsage ||
		!strings.Contains(msg, "earlier explore") {
		t.Errorf("explore after the first ended, without --force: exit %d %s", code, msg)
	}
	if code, _, msg := runBin(t, bin, "explore", "--protocol", "setnx-lua-del", "--runs", "2", "--out", out, "--force"); code != exitOK {
		t.Errorf("explore after the first ended: exit %d %s", code, msg)
	}
}
