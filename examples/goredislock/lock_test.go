// Package goredislock_test checks a lock written with go-redis, as a
// team would in its own repository: the lock code is unmodified, and
// locktest runs it against simulated Redis nodes under faults.
package goredislock_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces/locktest"
)

// errTaken: another client holds the lock.
var errTaken = errors.New("lock taken")

// Lock is SET key token NX PX to acquire and a Lua compare-and-delete to
// release: the usual single-master Redis lock.
type Lock struct {
	rdb        redis.UniversalClient
	key, token string
}

var unlockScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0`)

// Lock takes the lock or returns errTaken.
func (l *Lock) Lock(ctx context.Context) error {
	b := make([]byte, 16)
	rand.Read(b) // seeded per run by locktest: runs replay byte for byte
	l.token = hex.EncodeToString(b)
	ok, err := l.rdb.SetNX(ctx, l.key, l.token, 10*time.Second).Result()
	if err == nil && !ok {
		return errTaken
	}
	return err
}

// Unlock releases the lock if this client still holds it.
func (l *Lock) Unlock(ctx context.Context) error {
	return unlockScript.Run(ctx, l.rdb, []string{l.key}, l.token).Err()
}

// config describes the lock to locktest: how to build one on a go-redis
// client, its lease, and which error means "someone else holds it".
func config(faults ...string) locktest.Config {
	return locktest.Config{
		GoRedis: &locktest.GoRedis{
			Name:    "example-go-redis-lock",
			New:     func(rdb redis.UniversalClient, key string) locktest.Locker { return &Lock{rdb: rdb, key: key} },
			Lease:   10 * time.Second,
			Refused: func(err error) bool { return errors.Is(err, errTaken) },
		},
		Faults: faults,
		Checks: 20, // scenarios drawn per run of the test
	}
}

// TestLockSurvivesCrashesAndLostReplies passes: a client that crashes
// while holding the lock, or a reply that never arrives, cannot make two
// clients hold it at once (the key expires; the release checks the
// token). This is the kind of test to keep in CI.
func TestLockSurvivesCrashesAndLostReplies(t *testing.T) {
	locktest.Check(t, config("client-crash", "reply-loss"))
}

// TestLockUnderGCPause fails, as it should: a pause longer than the
// lease lets a second client in. It runs only with LOCKSIM_EXAMPLE=1 so
// that go test ./... stays green; its message is shown in docs/go-api.md.
func TestLockUnderGCPause(t *testing.T) {
	if os.Getenv("LOCKSIM_EXAMPLE") == "" {
		t.Skip("fails on purpose: run with LOCKSIM_EXAMPLE=1 to see the report")
	}
	locktest.Check(t, config("gc-pause"))
}

// NaiveLock takes the lock as Lock does but releases it with a plain
// DEL, whoever holds the key by then: a common bug.
type NaiveLock struct{ inner Lock }

// Lock takes the lock or returns errTaken.
func (l *NaiveLock) Lock(ctx context.Context) error { return l.inner.Lock(ctx) }

// Unlock deletes the key, even when another client holds it now.
func (l *NaiveLock) Unlock(ctx context.Context) error { return l.inner.rdb.Del(ctx, l.inner.key).Err() }

// TestNaiveLockIsFound keeps a known-bad lock as a regression test:
// Expect fails the test unless a violation is found, and returns it.
// Under a GC pause longer than the lease, two clients hold the lock at
// once; the same run shows the foreign release (ownership) of the DEL.
func TestNaiveLockIsFound(t *testing.T) {
	f := locktest.Expect(t, locktest.Config{
		GoRedis: &locktest.GoRedis{
			Name: "example-naive-lock",
			New: func(rdb redis.UniversalClient, key string) locktest.Locker {
				return &NaiveLock{Lock{rdb: rdb, key: key}}
			},
			Lease:   10 * time.Second,
			Refused: func(err error) bool { return errors.Is(err, errTaken) },
		},
		Faults:     []string{"gc-pause"},
		ShrinkRuns: 300,
		// In your repository leave TraceDir empty: the trace goes to
		// testdata/locksim, where you commit it.
		TraceDir: traceDir(t),
	})
	if f.Property != checker.PropMutex || f.Cause != checker.CausePrematureExpiry {
		t.Fatalf("want mutual exclusion broken by premature expiry, got:\n%s", f.Message)
	}
	t.Logf("clients %v, seed %d, trace %s\nreplay: %s", f.Clients, f.Seed, f.TracePath, f.Replay)
	html, err := os.Create(f.TracePath + ".html")
	if err != nil {
		t.Fatal(err)
	}
	defer html.Close()
	if err := f.WriteHTML(html); err != nil { // the timeline of the failing run
		t.Fatal(err)
	}
	if replaying() || testing.Short() {
		return
	}
	// The printed replay command reproduces the run in a new process.
	out, err := exec.Command("sh", "-c", f.Replay+" -v").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "replayed: the same trace, byte for byte") {
		t.Fatalf("replay in a new process: %v\n%s", err, out)
	}
}

// replaying reports whether this process replays a trace
// (-locktest.replay).
func replaying() bool {
	f := flag.Lookup(locktest.ReplayFlag)
	return f != nil && f.Value.String() != ""
}

// traceDir keeps this example's traces out of the repository.
func traceDir(t *testing.T) string {
	if replaying() {
		return ""
	}
	return t.TempDir()
}

// inventory is the service's own data in the same Redis, written with
// go-redis under the lock: each operation sells one unit (GET the
// stock, prepare the order, SET it back less one); the invariant is
// that every sale shows in the final stock.
func inventory() *locktest.Data {
	return &locktest.Data{
		Name: "example-inventory",
		Keys: map[string]string{"stock:apples": "100"},
		Critical: func(ctx context.Context, rdb redis.UniversalClient, op locktest.Operation) (string, error) {
			n, err := rdb.Get(ctx, "stock:apples").Int()
			if err != nil {
				return "", err
			}
			time.Sleep(2 * time.Second) // the order is prepared (virtual time)
			if err := rdb.Set(ctx, "stock:apples", n-1, 0).Err(); err != nil {
				return "", err
			}
			return "sold@" + strconv.Itoa(n), nil
		},
		Invariant: func(final map[string]string, history []locktest.Operation) locktest.Harm {
			sold := 0
			for _, op := range history {
				if strings.HasPrefix(op.Result, "sold@") {
					sold++
				}
			}
			left, _ := strconv.Atoi(final["stock:apples"])
			if lost := sold - (100 - left); lost > 0 {
				return locktest.Harm{LostUpdates: lost, Explanation: fmt.Sprintf("stock:apples is %d after %d sales of 100", left, sold)}
			}
			return locktest.Harm{}
		},
	}
}

// TestInventoryLosesSalesUnderGCPause: the inventory, under Lock, loses
// sales when a GC pause outlives the lease: the damage its invariant
// counts is the failure's.
func TestInventoryLosesSalesUnderGCPause(t *testing.T) {
	cfg := config("gc-pause")
	cfg.Data, cfg.Property, cfg.TraceDir = inventory(), locktest.NoDamage, traceDir(t)
	cfg.Checks, cfg.ShrinkRuns = 500, 300 // Expect stops at the first failing scenario
	f := locktest.Expect(t, cfg)
	if f.Property != checker.PropDamage || f.Outcome.File.Report.Damage.LostUpdates == 0 {
		t.Fatalf("want lost updates, got:\n%s", f.Message)
	}
}

// TestSentinelClientSurvivesFailover: Lock on the team's own Sentinel
// client (its master name, timeouts and retries) finds the promoted
// replica after the master fails, and keeps taking the lock there.
func TestSentinelClientSurvivesFailover(t *testing.T) {
	cfg := config()
	cfg.GoRedis.Name = "example-sentinel-lock"
	cfg.GoRedis.FailoverOptions = &redis.FailoverOptions{MasterName: "orders", ReadTimeout: time.Second, MaxRetries: 2}
	res, err := locktest.EvaluateT(t, cfg, protocols.Scenario{Seed: 2, Protocol: cfg.GoRedis.Name,
		Topology: protocols.TopoReplicated, Clients: 2, Ops: 8,
		// The master fails at t=3 s and stays down for a minute.
		Faults: []trace.Fault{{Kind: trace.FaultFailover, Target: protocols.MasterNode, AtMs: 3000, DurMs: 60000}}})
	if err != nil {
		t.Fatal(err)
	}
	taken := 0
	for _, op := range res.Outcome.File.Trace.Ops {
		if op.Kind == "acquire" && op.Result == "ok" && op.Call > int64(10*time.Second) {
			taken++ // on the promoted replica: the old master is down
		}
	}
	if taken == 0 {
		t.Fatal("no lock taken after the failover")
	}
}

// StuckLock waits for a wake-up that never comes when the lock is
// taken, without looking at its context: a common bug.
type StuckLock struct {
	inner Lock
	wake  chan struct{}
}

// Lock takes the lock, waiting (forever) while another client holds it.
func (l *StuckLock) Lock(ctx context.Context) error {
	for {
		if err := l.inner.Lock(ctx); !errors.Is(err, errTaken) {
			return err
		}
		<-l.wake // no case for ctx.Done()
	}
}

// Unlock releases the lock.
func (l *StuckLock) Unlock(ctx context.Context) error { return l.inner.Unlock(ctx) }

// TestStuckLockIsNamed: a lock blocked outside the simulated Redis is
// reported in one line naming the client and where it waits, not by a
// deadlock panic.
func TestStuckLockIsNamed(t *testing.T) {
	cfg := config()
	cfg.GoRedis.Name = "example-stuck-lock"
	cfg.GoRedis.New = func(rdb redis.UniversalClient, key string) locktest.Locker {
		return &StuckLock{inner: Lock{rdb: rdb, key: key}, wake: make(chan struct{})}
	}
	_, err := locktest.EvaluateT(t, cfg, protocols.Scenario{Seed: 3, Protocol: cfg.GoRedis.Name, Clients: 2, Ops: 1})
	// The package and file are whatever yours are called.
	want := regexp.MustCompile(`^client c\d/t1 blocked in \S+\.\(\*StuckLock\)\.Lock \(\S+\.go:\d+\) outside the simulated Redis: `)
	if err == nil || !want.MatchString(err.Error()) {
		t.Fatalf("got %v, want %s", err, want)
	}
}
