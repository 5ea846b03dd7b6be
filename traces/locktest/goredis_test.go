package locktest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/view"
)

// goRedisUnsafe are real go-redis locks that Check must catch, each
// with the cause its counterexample must have.
var goRedisUnsafe = []struct {
	name  string
	cfg   Config
	cause string
}{
	{"redsync under gc-pause", Config{GoRedis: redsyncGoRedis, Faults: []string{"gc-pause"}}, checker.CausePrematureExpiry},
	{"plain go-redis lock under failover", Config{GoRedis: plainGoRedis, Faults: []string{"failover"},
		Topologies: []string{protocols.TopoReplicated}}, checker.CauseLostAfterFailover},
}

// TestGoRedisLocksCaught: Check finds each unsafe go-redis lock, shrinks
// the counterexample to at most 2 clients and 2 fault events, writes its
// trace, and the replay flag of the command it prints reproduces the
// trace byte for byte.
func TestGoRedisLocksCaught(t *testing.T) {
	for _, tc := range goRedisUnsafe {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.TraceDir, cfg.ShrinkRuns = t.TempDir(), shrinkRuns()/4
			r := newRecorder(t)
			Check(r, cfg)
			msg := r.message()
			t.Logf("Check's message:\n%s", msg)
			if want := "locksim: mutual-exclusion violated (" + tc.cause + ")\n"; !strings.HasPrefix(msg, want) {
				t.Fatalf("want %q, got:\n%s", want, msg)
			}
			path := traceOf(t, msg)
			f, err := traces.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			// The trace opens in `locksim view` like any other.
			page, err := view.ViewFile(f)
			if err != nil || !strings.Contains(string(page), tc.cause) {
				t.Errorf("view of %s: %v (%d bytes, cause shown: %v)", path, err, len(page), strings.Contains(string(page), tc.cause))
			}
			if got := scaleOf(f.Scenario); got.clients > 2 || got.faults > 2 {
				t.Errorf("shrunk to %+v, want at most 2 clients and 2 fault events:\n%s", got, msg)
			}
			if !strings.Contains(msg, "-"+ReplayFlag+"="+path) {
				t.Errorf("no replay command for %s:\n%s", path, msg)
			}
			*replayPath = path
			defer func() { *replayPath = "" }()
			r = newRecorder(t)
			Check(r, cfg)
			if got := r.message(); !strings.Contains(got, "replayed: the same trace, byte for byte") {
				t.Errorf("replay:\n%s", got)
			}
		})
	}
}

// TestGoRedisCorrectLockHolds: the plain go-redis lock, without faults,
// never lets two holders in.
func TestGoRedisCorrectLockHolds(t *testing.T) {
	checks := 500
	if raceEnabled {
		checks = 50 // the 500 run without -race
	}
	r := newRecorder(t)
	Check(r, Config{GoRedis: plainGoRedis, Checks: checks, TraceDir: t.TempDir()})
	if r.Failed() {
		t.Fatalf("a correct lock failed:\n%s", r.message())
	}
	if want := "held in "; !strings.Contains(strings.Join(r.logs, "\n"), want) {
		t.Fatalf("logs: %v", r.logs)
	}
}

// unseededLock draws its token from math/rand/v2's global source, which
// no one can seed: the bridge cannot make its runs repeat.
type unseededLock struct{ plainLock }

func (l *unseededLock) Lock(ctx context.Context) error {
	l.ttl = time.Duration(5+rand.IntN(10)) * time.Second
	return l.plainLock.Lock(ctx)
}

// TestGoRedisNondeterminismReported: a lock that draws randomness the
// bridge does not control is reported as such before any search.
func TestGoRedisNondeterminismReported(t *testing.T) {
	g := *plainGoRedis
	g.Name = "go-unseeded"
	g.New = func(rdb redis.UniversalClient, key string) Locker {
		return &unseededLock{plainLock{rdb: rdb, key: key}}
	}
	r := newRecorder(t)
	Check(r, Config{GoRedis: &g, TraceDir: t.TempDir()})
	msg := r.message()
	if !strings.HasPrefix(msg, "locktest: go-unseeded is not deterministic: two runs of the same scenario gave different traces") ||
		!strings.Contains(msg, "first difference: ") || !strings.Contains(msg, "Give it a seeded source") {
		t.Fatalf("message:\n%s", msg)
	}
}

// TestGoRedisRefusedFaults: faults one bubble cannot express are refused
// with a reason, in the configuration and in a scenario.
func TestGoRedisRefusedFaults(t *testing.T) {
	r := newRecorder(t)
	Check(r, Config{GoRedis: plainGoRedis, Faults: []string{"watchdog-stall"}})
	if msg := r.message(); !strings.Contains(msg, "fault watchdog-stall is not available for a lock run through the go-redis bridge") {
		t.Fatalf("message:\n%s", msg)
	}
	sc := protocols.Scenario{Protocol: plainGoRedis.Name, Clients: 2, Faults: []trace.Fault{{Kind: trace.FaultClockJump, Target: "c1", AtMs: 100, Value: 5000}}}
	_, err := EvaluateT(t, Config{GoRedis: plainGoRedis}, sc)
	if err == nil || !strings.Contains(err.Error(), "fault clock-jump on c1: a process run through the go-redis bridge has no clock of its own") {
		t.Fatalf("err: %v", err)
	}
	if _, err := Evaluate(Config{GoRedis: plainGoRedis}, sc); err != errNeedsT {
		t.Fatalf("Evaluate without a *testing.T: %v", err)
	}
}

// TestGoRedisLiteralPerRun: a GoRedis literal built inside the test
// function, as the README shows, is a new value on each run of the test
// (go test -count=N, one subtest per case): each run binds it to the
// name, and the runs agree byte for byte.
func TestGoRedisLiteralPerRun(t *testing.T) {
	sc := protocols.Scenario{Seed: 3, Protocol: "go-literal", Clients: 2, Ops: 1}
	var hash string
	for i := range 3 {
		t.Run(fmt.Sprint("run", i), func(t *testing.T) {
			g := &GoRedis{Name: "go-literal", New: newPlainLock, Lease: 10 * time.Second,
				Refused: func(err error) bool { return errors.Is(err, errNotAcquired) }}
			r := newRecorder(t)
			Check(r, Config{GoRedis: g, Checks: 3, TraceDir: t.TempDir()})
			if r.Failed() {
				t.Fatalf("run %d:\n%s", i, r.message())
			}
			res, err := EvaluateT(t, Config{GoRedis: g}, sc)
			if err != nil {
				t.Fatal(err)
			}
			if h := res.Outcome.File.TraceSHA256; hash != "" && h != hash {
				t.Fatalf("run %d: trace %s, first run %s", i, h[:12], hash[:12])
			}
			hash = res.Outcome.File.TraceSHA256
		})
	}
	longer := &GoRedis{Name: "go-literal", New: newPlainLock, Lease: 20 * time.Second}
	_, err := EvaluateT(t, Config{GoRedis: longer}, sc)
	if err == nil || !strings.Contains(err.Error(), `another Config.GoRedis is already registered as "go-literal", with other settings (Lease 20s, earlier 10s)`) {
		t.Fatalf("another lock under the name: %v", err)
	}
}

// TestGoRedisInParallelTest: a GoRedis lock in a parallel test is refused
// with a message that says why, not a panic of package testing.
func TestGoRedisInParallelTest(t *testing.T) {
	t.Run("group", func(t *testing.T) {
		t.Run("parallel", func(t *testing.T) {
			t.Parallel()
			r := newRecorder(t)
			Check(r, Config{GoRedis: plainGoRedis, Checks: 1, TraceDir: t.TempDir()})
			want := "locktest: Config.GoRedis go-plain-setnx cannot run in a parallel test: each run seeds crypto/rand and math/rand for the whole process"
			if msg := r.message(); !strings.HasPrefix(msg, want) {
				t.Fatalf("message:\n%s", msg)
			}
		})
	})
}

// ctxIgnoringLock waits for a wake-up that never comes when the lock is
// taken, without looking at its context: a common bug.
type ctxIgnoringLock struct {
	plainLock
	wake chan struct{}
}

func (l *ctxIgnoringLock) Lock(ctx context.Context) error {
	for {
		err := l.plainLock.Lock(ctx)
		if !errors.Is(err, errNotAcquired) {
			return err
		}
		<-l.wake // no case for ctx.Done()
	}
}

// TestGoRedisContextIgnoredDiagnosed: a lock that ignores its context
// and blocks outside the simulated Redis is reported in one line naming
// the client and the call where it waits, not by synctest's deadlock
// panic (which would stop the test binary and fail this test).
func TestGoRedisContextIgnoredDiagnosed(t *testing.T) {
	g := &GoRedis{Name: "go-ctx-ignoring", Lease: 10 * time.Second,
		New: func(rdb redis.UniversalClient, key string) Locker {
			return &ctxIgnoringLock{plainLock{rdb: rdb, key: key, ttl: 10 * time.Second}, make(chan struct{})}
		},
		Refused: func(err error) bool { return errors.Is(err, errNotAcquired) }}
	const line = "client c2/t1 blocked in locktest.(*ctxIgnoringLock).Lock (goredis_test.go:"
	sc := protocols.Scenario{Seed: 3, Protocol: g.Name, Clients: 2, Ops: 1} // c1 takes the lock first
	_, err := EvaluateT(t, Config{GoRedis: g}, sc)
	if err == nil || !strings.HasPrefix(err.Error(), line) || !strings.Contains(err.Error(), ") outside the simulated Redis: ") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("EvaluateT: %v\nwant one line starting %q", err, line)
	}
	r := newRecorder(t)
	Check(r, Config{GoRedis: g, Checks: 5, TraceDir: t.TempDir()})
	want := regexp.MustCompile(`^locktest: scenario did not run: client c\d+/t1 blocked in locktest\.\(\*ctxIgnoringLock\)\.Lock \(goredis_test\.go:\d+\) outside the simulated Redis: `)
	if msg := r.message(); !want.MatchString(msg) {
		t.Fatalf("Check's message:\n%s", msg)
	}
}

// TestGoRedisFailoverOptionsSurviveFailover: a lock on the user's own
// Sentinel client (FailoverOptions: its master name, timeouts and
// retries) finds the promoted replica through the simulated sentinel
// and keeps taking the lock after a failover.
func TestGoRedisFailoverOptionsSurviveFailover(t *testing.T) {
	g := *plainGoRedis
	g.Name = "go-plain-sentinel"
	g.FailoverOptions = &redis.FailoverOptions{MasterName: "orders", ReadTimeout: time.Second, MaxRetries: 2}
	sc := protocols.Scenario{Seed: 2, Protocol: g.Name, Topology: protocols.TopoReplicated, Clients: 2, Ops: 8,
		Faults: []trace.Fault{{Kind: trace.FaultFailover, Target: protocols.MasterNode, AtMs: 3000, DurMs: 60000}}}
	res, err := EvaluateT(t, Config{GoRedis: &g}, sc)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Outcome.File.Trace
	promoted, promotedAt, asked := "", int64(-1), false
	for _, e := range tr.Events {
		if e.Kind == trace.EvPromote && strings.HasPrefix(e.Detail, "promoted") && promotedAt < 0 {
			promoted, promotedAt = e.Party, e.T
		}
		asked = asked || (e.Kind == trace.EvCommand && strings.Contains(strings.Join(e.Args, " "), "get-master-addr-by-name orders"))
	}
	if promotedAt < 0 || !asked {
		t.Fatalf("promotion at %d, sentinel asked for master %q: %v", promotedAt, "orders", asked)
	}
	after := 0
	for _, op := range tr.Ops {
		if op.Kind == "acquire" && op.Result == "ok" && op.Call > promotedAt {
			after++
		}
	}
	onNew := false
	for _, e := range tr.Events {
		onNew = onNew || (e.Kind == trace.EvCommand && e.Party == promoted && e.T > promotedAt && len(e.Args) > 0 && strings.EqualFold(e.Args[0], "set"))
	}
	if after == 0 || !onNew {
		t.Fatalf("after the failover to %s at %d: %d locks taken, SET on the new master: %v", promoted, promotedAt, after, onNew)
	}
	// Options the simulated sentinel cannot honour are refused, naming the field.
	bad := *plainGoRedis
	bad.Name = "go-plain-replica-reads"
	bad.FailoverOptions = &redis.FailoverOptions{ReplicaOnly: true}
	r := newRecorder(t)
	Check(r, Config{GoRedis: &bad})
	if msg := r.message(); !strings.HasPrefix(msg, "locktest: Config.GoRedis go-plain-replica-reads: FailoverOptions.ReplicaOnly: the simulated sentinel lists no replicas") {
		t.Fatalf("message %q", msg)
	}
}
