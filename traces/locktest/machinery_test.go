package locktest

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

// shortLease makes setnx-del fail in nearly every scenario with two
// clients (5 s of work under a 1 s lease): a cheap failing property for
// testing the machinery around it.
func shortLease(dir string) Config {
	return Config{Protocol: "setnx-del", Leases: []time.Duration{time.Second}, MaxOps: 1, TraceDir: dir, ShrinkRuns: 100}
}

// twoClients is a scenario shortLease fails in.
var twoClients = protocols.Scenario{Protocol: "setnx-del", LeaseMs: 1000, Clients: 2, Ops: 1, Faults: []trace.Fault{}}

// TestSavedCounterexampleRerunsFirst: a trace an earlier run saved for
// this test fails the next Check at once, before any search.
func TestSavedCounterexampleRerunsFirst(t *testing.T) {
	dir := t.TempDir()
	c := shortLease(dir).mustPrepare()
	res, err := c.evaluate(twoClients, "")
	if err != nil || res.Failure == nil {
		t.Fatalf("%v %+v", err, res)
	}
	path, err := c.write(t.Name(), res)
	if err != nil {
		t.Fatal(err)
	}
	r := newRecorder(t)
	Check(r, shortLease(dir))
	msg := r.message()
	if !strings.Contains(msg, "saved by an earlier run still fails") || !strings.Contains(msg, "trace: "+path+"\n") ||
		!strings.HasPrefix(msg, res.Failure.Title+"\n") {
		t.Fatalf("message:\n%s", msg)
	}
	if strings.Contains(msg, "shrunk:") {
		t.Fatalf("searched although a saved counterexample fails:\n%s", msg)
	}
}

// TestReplayFlag: -locktest.replay replays one trace in the Check of its
// protocol, verifies it byte for byte, and skips the Checks of others.
func TestReplayFlag(t *testing.T) {
	dir := t.TempDir()
	c := shortLease(dir).mustPrepare()
	res, err := c.evaluate(twoClients, "")
	if err != nil {
		t.Fatal(err)
	}
	path, err := c.write(t.Name(), res)
	if err != nil {
		t.Fatal(err)
	}
	*replayPath = path
	defer func() { *replayPath = "" }()

	r := newRecorder(t)
	Check(r, shortLease(dir))
	if msg := r.message(); !strings.HasPrefix(msg, res.Failure.Title+"\n") || !strings.Contains(msg, "replayed: the same trace, byte for byte") {
		t.Fatalf("message:\n%s", msg)
	}
	t.Run("other protocol", func(t *testing.T) {
		r := newRecorder(t)
		defer func() {
			if !t.Skipped() || r.Failed() {
				t.Errorf("Check of setnx-lua-del did not skip the replay of a setnx-del trace")
			}
		}()
		Check(r, Config{Protocol: "setnx-lua-del"})
	})
}

// TestPropertyLeavesOneTrace: in a rapid.Check of one's own, the
// property writes each failing case's trace and removes the one it
// supersedes: once rapid is done, only the smallest case's is left, and
// rapid's report carries its path.
func TestPropertyLeavesOneTrace(t *testing.T) {
	dir := t.TempDir()
	r := newRecorder(t)
	rapid.Check(r, Property(shortLease(dir)))
	if !r.Failed() {
		t.Fatal("the property held")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("traces left: %v", files)
	}
	msg := strings.Join(r.msgs, "\n")
	if !strings.Contains(msg, "locksim: mutual-exclusion violated (premature-expiry)") || !strings.Contains(msg, "trace: "+files[0]) {
		t.Fatalf("rapid's report:\n%s", msg)
	}
	f, err := traces.Read(files[0])
	if err != nil {
		t.Fatal(err)
	}
	sc := f.Scenario
	if want := fmt.Sprintf(": %d clients x 1 thread x 1 op,", sc.Clients); !strings.Contains(msg, want) {
		t.Fatalf("the trace left (%d clients) is not the case rapid reported:\n%s", sc.Clients, msg)
	}
}

// TestChecksIsExact: Check runs Config.Checks scenarios (a fifth under
// -short), across as many rapid.Check rounds as that takes.
func TestChecksIsExact(t *testing.T) {
	want := 7
	if testing.Short() {
		want = 1
	}
	r := newRecorder(t)
	Check(r, Config{Protocol: "setnx-lua-del", MaxClients: 1, MaxOps: 1, Checks: 7})
	if r.Failed() {
		t.Fatal(r.message())
	}
	line := ""
	for _, l := range r.logs {
		if strings.HasPrefix(l, "locktest: ") {
			line = l
		}
	}
	if !strings.Contains(line, " held in "+strconv.Itoa(want)+" scenarios ") {
		t.Fatalf("log %q, want %d scenarios", line, want)
	}
}

// grabAll is a lock of one's own that never asks Redis: every acquire
// succeeds.
type grabAll struct{}

func (grabAll) Acquire(*sim.Thread) (bool, error) { return true, nil }
func (grabAll) Release(*sim.Thread) (bool, error) { return true, nil }

// TestLockPassedDirectly: a protocol passed as Config.Lock is registered
// on first use and checked like any other; its replay command is a go
// test run, since the locksim CLI does not know it.
func TestLockPassedDirectly(t *testing.T) {
	lock := &protocols.Protocol{Name: "locktest-grab-all", Lease: time.Second,
		New: func(protocols.Env, string) protocols.Lock { return grabAll{} }}
	for range 2 { // the second Check finds it registered
		r := newRecorder(t)
		Check(r, Config{Lock: lock, MaxOps: 1, Checks: 500, ShrinkRuns: 100, TraceDir: t.TempDir()})
		msg := r.message()
		if !strings.HasPrefix(msg, "locksim: mutual-exclusion violated (local-lock-only)\n") ||
			!strings.Contains(msg, "go test -run '^TestLockPassedDirectly$' -locktest.replay=") {
			t.Fatalf("message:\n%s", msg)
		}
	}
	if _, err := protocols.Lookup(lock.Name); err != nil {
		t.Fatal(err)
	}
}

// panicky is a lock of one's own with a bug: its acquire panics.
type panicky struct{}

func (panicky) Acquire(*sim.Thread) (bool, error) { panic("my lock has a bug") }
func (panicky) Release(*sim.Thread) (bool, error) { return true, nil }

// TestLockThatPanics: a panic in the lock under test fails Check as a
// scenario that did not run, shrunk like a violation.
func TestLockThatPanics(t *testing.T) {
	lock := &protocols.Protocol{Name: "locktest-panicky", Lease: time.Second,
		New: func(protocols.Env, string) protocols.Lock { return panicky{} }}
	r := newRecorder(t)
	Check(r, Config{Lock: lock, Checks: 10, ShrinkRuns: 20, TraceDir: t.TempDir()})
	if msg := r.message(); !strings.HasPrefix(msg, "locktest: scenario did not run: simulated code panicked: my lock has a bug\n  locktest-panicky / unique-name on single: 1 client x 1 thread x 1 op,") {
		t.Fatalf("message:\n%s", msg)
	}
}
