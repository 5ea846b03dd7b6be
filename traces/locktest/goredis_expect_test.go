package locktest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"pgregory.net/rapid"

	"github.com/locksim/locksim/checker"
)

// delLock is a go-redis lock whose release deletes the key whoever holds
// it: SET NX PX, then DEL.
type delLock struct{ plainLock }

func (l *delLock) Unlock(ctx context.Context) error { return l.rdb.Del(ctx, l.key).Err() }

func newDelGoRedis() *GoRedis {
	return &GoRedis{Name: "go-setnx-del", Lease: 10 * time.Second,
		New: func(rdb redis.UniversalClient, key string) Locker {
			return &delLock{plainLock{rdb: rdb, key: key, ttl: 10 * time.Second}}
		},
		Refused: func(err error) bool { return errors.Is(err, errNotAcquired) }}
}

// TestExpectNaiveGoRedisLock: Expect finds the naive lock unsafe under
// gc-pause and returns the Failure: property and cause in the checker's
// taxonomy, the mechanism, the clients, the seed, the trace it wrote and
// the command that replays it; the foreign release the same run made is
// listed too (Also); WriteHTML draws the run; the replay flag makes
// Expect replay the trace, byte for byte.
func TestExpectNaiveGoRedisLock(t *testing.T) {
	cfg := Config{GoRedis: newDelGoRedis(), Faults: []string{"gc-pause"}, TraceDir: t.TempDir(), ShrinkRuns: shrinkRuns() / 4}
	r := newRecorder(t)
	f := Expect(r, cfg)
	if r.Failed() || f == nil {
		t.Fatalf("Expect failed:\n%s", r.message())
	}
	if f.Property != checker.PropMutex || f.Cause != checker.CausePrematureExpiry || f.Mechanism != "holder paused" {
		t.Fatalf("property %q cause %q mechanism %q:\n%s", f.Property, f.Cause, f.Mechanism, f.Message)
	}
	if len(f.Clients) != 2 || f.Seed != f.Scenario.Seed || f.Scenario.Protocol != "go-setnx-del" {
		t.Fatalf("clients %v seed %d scenario %+v", f.Clients, f.Seed, f.Scenario)
	}
	if _, err := os.Stat(f.TracePath); err != nil || !strings.Contains(f.Replay, "-"+ReplayFlag+"="+f.TracePath) {
		t.Fatalf("trace %s (%v), replay %q", f.TracePath, err, f.Replay)
	}
	if !slices.ContainsFunc(f.Also, func(v checker.Violation) bool {
		return v.Property == checker.PropOwnership && v.Cause == checker.CauseForeignRelease
	}) || !strings.Contains(f.Message, "also broken (not checked here): ownership: foreign-release on ") {
		t.Fatalf("no foreign release reported:\n%s", f.Message)
	}
	var page bytes.Buffer
	if err := f.WriteHTML(&page); err != nil || !bytes.Contains(page.Bytes(), []byte(checker.CauseForeignRelease)) ||
		!bytes.HasPrefix(page.Bytes(), []byte("<!doctype html>")) {
		t.Fatalf("WriteHTML: %v, %d bytes", err, page.Len())
	}

	*replayPath = f.TracePath
	defer func() { *replayPath = "" }()
	r = newRecorder(t)
	g := Expect(r, cfg)
	if r.Failed() || g == nil || !strings.Contains(g.Message, "replayed: the same trace, byte for byte") || g.TracePath != f.TracePath {
		t.Fatalf("replay:\n%s\n%v", r.message(), g)
	}
}

// TestExpectOwnership: checked for Ownership, the naive lock's failure
// is the foreign release itself.
func TestExpectOwnership(t *testing.T) {
	r := newRecorder(t)
	f := Expect(r, Config{GoRedis: newDelGoRedis(), Property: Ownership, Faults: []string{"gc-pause"}, Checks: 2000,
		TraceDir: t.TempDir(), ShrinkRuns: shrinkRuns() / 4})
	if r.Failed() || f == nil {
		t.Fatalf("Expect failed:\n%s", r.message())
	}
	if f.Property != checker.PropOwnership || f.Cause != checker.CauseForeignRelease ||
		!strings.HasPrefix(f.Message, "locksim: ownership violated (foreign-release)\n") {
		t.Fatalf("property %q cause %q:\n%s", f.Property, f.Cause, f.Message)
	}
}

// TestExpectFailsWhenTheLockHolds: a lock that is not found unsafe
// within the budget fails Expect, saying what held.
func TestExpectFailsWhenTheLockHolds(t *testing.T) {
	r := newRecorder(t)
	if f := Expect(r, Config{GoRedis: plainGoRedis, Checks: 5, TraceDir: t.TempDir()}); f != nil {
		t.Fatalf("a failure from a correct lock: %s", f.Message)
	}
	if msg := r.message(); !strings.HasPrefix(msg, "locktest: expected a violation, but mutual-exclusion held in 5 scenarios of go-plain-setnx") {
		t.Fatalf("message:\n%s", msg)
	}
	r = newRecorder(t)
	if f := Expect(r, Config{GoRedis: plainGoRedis, Property: "exclusion"}); f != nil || !strings.Contains(r.message(), `unknown Config.Property "exclusion"`) {
		t.Fatalf("a bad Config: %v %q", f, r.message())
	}
}

// TestPropertyOfGoRedisLock: Property does not panic for a GoRedis lock:
// its cases fail with a message naming PropertyT, which works.
func TestPropertyOfGoRedisLock(t *testing.T) {
	r := newRecorder(t)
	rapid.Check(r, Property(Config{GoRedis: plainGoRedis}))
	if msg := strings.Join(r.msgs, "\n"); !strings.Contains(msg, "use locktest.PropertyT(t, cfg)") {
		t.Fatalf("Property of a GoRedis lock:\n%s", msg)
	}
	r = newRecorder(t)
	rapid.Check(r, PropertyT(t, Config{GoRedis: newDelGoRedis(), Faults: []string{"gc-pause"}, TraceDir: t.TempDir(), ShrinkRuns: 20}))
	if msg := strings.Join(r.msgs, "\n"); !strings.Contains(msg, "locksim: mutual-exclusion violated") {
		t.Fatalf("PropertyT of a naive GoRedis lock:\n%s", msg)
	}
}

// TestOneSavedFailure: when rapid writes its fail file (its default
// outside these tests), Check removes it and prints rapid's seed: the
// trace under TraceDir is the one saved failure.
func TestOneSavedFailure(t *testing.T) {
	f := flag.Lookup("rapid.nofailfile")
	if f == nil {
		t.Skip("rapid has no -rapid.nofailfile")
	}
	old := f.Value.String()
	f.Value.Set("false")
	defer f.Value.Set(old)
	t.Chdir(t.TempDir())
	r := newRecorder(t)
	Check(r, Config{Protocol: "setnx-del", Faults: []string{"gc-pause"}, ShrinkRuns: 50})
	msg := r.message()
	if !strings.Contains(msg, "\n  trace: testdata/locksim/TestOneSavedFailure-") || !regexp.MustCompile(`rapid's search, to run it again: -run=".*" -rapid\.seed=\d+$`).MatchString(msg) {
		t.Fatalf("message:\n%s", msg)
	}
	if _, err := os.Stat("testdata/rapid"); err == nil {
		t.Fatalf("rapid's fail file is still under testdata/rapid")
	}
	if m, _ := filepath.Glob("testdata/locksim/*.json"); len(m) != 1 {
		t.Fatalf("saved traces: %v", m)
	}
}
