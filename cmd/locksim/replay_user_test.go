package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/locktest"
)

// TestReplayUserProtocolSaysHow checks that replaying a trace of a
// protocol a Go test registered (unknown to the CLI) exits 2 with the
// go test command that replays it, and that view still renders it.
func TestReplayUserProtocolSaysHow(t *testing.T) {
	if locktestReplayFlag != locktest.ReplayFlag {
		t.Fatalf("the CLI names the flag %q, locktest %q", locktestReplayFlag, locktest.ReplayFlag)
	}
	dir := t.TempDir()
	f, err := traces.Read(writeTrace(t, dir, "run", "--protocol", "setnx-del", "--faults", "gc-pause"))
	if err != nil {
		t.Fatal(err)
	}
	// A user's protocol, and a catalog protocol on a user's workload
	// (a locktest.Resource).
	for _, user := range []struct{ what, protocol, workload string }{
		{"protocol", "my-own-lock", f.Scenario.Workload},
		{"workload", f.Scenario.Protocol, "my-account"},
	} {
		g := *f
		g.Scenario.Protocol, g.Scenario.Workload = user.protocol, user.workload
		g.TraceSHA256 = traces.Hash(&g) // as locktest writes it: the hash binds the scenario
		path := filepath.Join(dir, "TestMyLock-0123456789ab.json")
		if err := traces.Write(path, &g); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI("replay", path)
		abs, _ := filepath.Abs(path)
		want := "go test -run '^TestMyLock$' -locktest.replay=" + abs
		if code != exitUsage || !strings.Contains(stderr, want) || !strings.Contains(stderr, user.what) ||
			strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Fatalf("exit %d, stderr %q; want exit %d and one line with %q", code, stderr, exitUsage, want)
		}
		html := filepath.Join(dir, "t.html")
		if code, _, stderr := runCLI("view", path, "-o", html); code != exitOK {
			t.Fatalf("view: exit %d: %s", code, stderr)
		}
		if _, err := os.Stat(html); err != nil {
			t.Fatal(err)
		}
	}
}
