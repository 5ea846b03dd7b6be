package locktest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces"
)

// inventory is a service's own data written with go-redis under the
// lock: each operation sells one unit by reading the stock, working, and
// writing it back less one (a read-modify-write the lock must protect).
func inventory() *Data {
	return &Data{
		Name: "inventory",
		Keys: map[string]string{"stock:apples": "100"},
		Critical: func(ctx context.Context, rdb redis.UniversalClient, op Operation) (string, error) {
			n, err := rdb.Get(ctx, "stock:apples").Int()
			if err != nil {
				return "", err
			}
			time.Sleep(2 * time.Second) // the order is prepared
			if err := rdb.Set(ctx, "stock:apples", n-1, 0).Err(); err != nil {
				return "", err
			}
			return "sold@" + strconv.Itoa(n), nil
		},
		Invariant: func(final map[string]string, history []Operation) Harm {
			sold := 0
			for _, op := range history {
				if strings.HasPrefix(op.Result, "sold@") {
					sold++
				}
			}
			left, _ := strconv.Atoi(final["stock:apples"])
			if lost := sold - (100 - left); lost > 0 {
				return Harm{LostUpdates: lost, Explanation: fmt.Sprintf("stock:apples is %d after %d sales of 100", left, sold)}
			}
			return Harm{}
		},
	}
}

// TestGoRedisDataLostUpdates: an inventory written with go-redis in the
// same Redis as the lock shows lost updates when a GC pause outlives
// the lease: the damage is the inventory's own invariant's count, and it
// is explained by the overlap of two clients' holds (premature expiry).
func TestGoRedisDataLostUpdates(t *testing.T) {
	r := newRecorder(t)
	f := Expect(r, Config{GoRedis: plainGoRedis, Data: inventory(), Property: NoDamage,
		Faults: []string{"gc-pause"}, TraceDir: t.TempDir(), ShrinkRuns: shrinkRuns() / 4})
	if f == nil {
		t.Fatalf("no failure:\n%s", r.message())
	}
	t.Logf("%s", f.Message)
	d := f.Outcome.File.Report.Damage
	if f.Property != checker.PropDamage || d.LostUpdates == 0 {
		t.Fatalf("want damage with lost updates, got property %s, damage %+v:\n%s", f.Property, d, f.Message)
	}
	if f.Cause != checker.CausePrematureExpiry || len(f.Clients) != 2 {
		t.Fatalf("want the lost update explained by premature expiry between two clients, got %s %v:\n%s", f.Cause, f.Clients, f.Message)
	}
	for _, want := range []string{"lost update", "stock:apples is "} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, f.Message)
		}
	}
	// The invariant's judgement is in the trace: the file is checked
	// again without the Go function (locksim view, check), and replays.
	file, err := traces.Read(f.TracePath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := traces.Recheck(file); err != nil {
		t.Fatalf("recheck of %s: %v", f.TracePath, err)
	}
	*replayPath = f.TracePath
	defer func() { *replayPath = "" }()
	r = newRecorder(t)
	Expect(r, Config{GoRedis: plainGoRedis, Data: inventory(), Property: NoDamage, Faults: []string{"gc-pause"}})
	if got := r.message(); !strings.Contains(strings.Join(r.logs, "\n")+got, "replayed: the same trace, byte for byte") {
		t.Errorf("replay:\n%s\n%s", strings.Join(r.logs, "\n"), got)
	}
}

// TestGoRedisDataRefused: a Data the bridge cannot run is refused with
// one line naming the field.
func TestGoRedisDataRefused(t *testing.T) {
	noKeys := inventory()
	noKeys.Keys = nil
	// The last case needs "inventory" registered, whichever tests ran.
	if _, err := (Config{GoRedis: plainGoRedis, Data: inventory()}).prepare(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Protocol: "setnx-del", Data: inventory()}, "locktest: Config.Data needs Config.GoRedis"},
		{Config{GoRedis: redislockGoRedisForData(), Data: inventory(), Topologies: []string{"independent"}}, "locktest: Config.Data inventory: topology independent keeps the data on a node of its own"},
		{Config{GoRedis: plainGoRedis, Data: noKeys}, "locktest: Config.Data inventory needs Keys"},
		{Config{GoRedis: plainGoRedis, Data: &Data{Name: "inventory", Keys: map[string]string{"other": "1"}, Critical: noKeys.Critical, Invariant: noKeys.Invariant}},
			`locktest: another Config.Data is already registered as "inventory", with other Keys`},
	} {
		r := newRecorder(t)
		Check(r, tc.cfg)
		if msg := r.message(); !strings.HasPrefix(msg, tc.want) || strings.Contains(msg, "\n") {
			t.Errorf("message %q, want one line starting %q", msg, tc.want)
		}
	}
}

// redislockGoRedisForData is a pool lock (topology independent).
func redislockGoRedisForData() *GoRedis {
	return &GoRedis{Name: "go-data-pool", Lease: 10 * time.Second,
		NewPool: func(clients []redis.UniversalClient, key string) Locker { return newPlainLock(clients[0], key) }}
}

// TestGoRedisDataHolds: the same inventory under a correct lock and no
// faults keeps every sale.
func TestGoRedisDataHolds(t *testing.T) {
	r := newRecorder(t)
	Check(r, Config{GoRedis: plainGoRedis, Data: inventory(), Property: NoDamage, Checks: 20, TraceDir: t.TempDir()})
	if r.Failed() {
		t.Fatalf("a correct lock damaged the inventory:\n%s", r.message())
	}
}

// shelves is an inventory of two products, each behind its own lock
// key: the user chooses the lock keys and how many distinct locks there
// are, and Critical sells from the product its lock guards.
func shelves() *Data {
	d := inventory()
	d.Name = "shelves"
	d.Keys = map[string]string{"stock:a": "100", "stock:b": "100"}
	d.Locks = []string{"lock:a", "lock:b"}
	d.Critical = func(ctx context.Context, rdb redis.UniversalClient, op Operation) (string, error) {
		key := "stock:" + strings.TrimPrefix(op.Lock, "lock:")
		n, err := rdb.Get(ctx, key).Int()
		if err != nil {
			return "", err
		}
		time.Sleep(2 * time.Second)
		if err := rdb.Set(ctx, key, n-1, 0).Err(); err != nil {
			return "", err
		}
		return key + " sold@" + strconv.Itoa(n), nil
	}
	d.Invariant = func(final map[string]string, history []Operation) Harm {
		lost := 0
		for _, key := range []string{"stock:a", "stock:b"} {
			sold := 0
			for _, op := range history {
				if strings.HasPrefix(op.Result, key+" sold@") {
					sold++
				}
			}
			left, _ := strconv.Atoi(final[key])
			lost += max(0, sold-(100-left))
		}
		if lost > 0 {
			return Harm{LostUpdates: lost, Explanation: fmt.Sprintf("%d sales lost", lost)}
		}
		return Harm{}
	}
	return d
}

// TestGoRedisDataLockKeys: the operations take the user's lock keys,
// both of them over a run, the lock is built on each key, and the
// user's client options reach the clients Critical is given.
func TestGoRedisDataLockKeys(t *testing.T) {
	g := *plainGoRedis
	g.Name = "go-plain-options"
	g.Options = &redis.Options{ReadTimeout: 1500 * time.Millisecond, MaxRetries: 1}
	d := shelves()
	seen := map[string]bool{}
	critical := d.Critical
	d.Critical = func(ctx context.Context, rdb redis.UniversalClient, op Operation) (string, error) {
		if o := rdb.(*redis.Client).Options(); o.ReadTimeout != 1500*time.Millisecond || o.MaxRetries != 1 {
			return "", fmt.Errorf("client options: ReadTimeout %v, MaxRetries %d", o.ReadTimeout, o.MaxRetries)
		}
		return critical(ctx, rdb, op)
	}
	sc := protocols.Scenario{Seed: 5, Protocol: g.Name, Workload: d.Name, Clients: 3, Ops: 4}
	res, err := EvaluateT(t, Config{GoRedis: &g, Data: d, Property: NoDamage}, sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range res.Outcome.File.Trace.Ops {
		switch op.Kind {
		case "acquire":
			seen[op.Key] = true
		case model.DataKind(d.Name):
			if strings.HasPrefix(op.Result, "error") {
				t.Fatalf("operation %+v", op)
			}
		}
	}
	if !seen["lock:a"] || !seen["lock:b"] || len(seen) != 2 {
		t.Fatalf("lock keys taken: %v, want lock:a and lock:b", seen)
	}
	if rep := res.Outcome.File.Report; rep.Verdict != checker.VerdictOK {
		t.Fatalf("a correct lock without faults: %s %+v", rep.Verdict, rep.Violations)
	}
}

// TestGoRedisOptionsRefused: client options the simulation cannot
// honour are refused in one line naming the field.
func TestGoRedisOptionsRefused(t *testing.T) {
	g := *plainGoRedis
	g.Name = "go-plain-tls"
	g.Options = &redis.Options{Password: "secret"}
	r := newRecorder(t)
	Check(r, Config{GoRedis: &g})
	if msg, want := r.message(), "locktest: Config.GoRedis go-plain-tls: Options.Password: the simulated nodes have no password"; msg != want {
		t.Fatalf("message %q, want %q", msg, want)
	}
	if _, err := plainGoRedis.registered(); err != nil {
		t.Fatal(err)
	}
	other := *plainGoRedis
	other.Options = &redis.Options{ReadTimeout: time.Second}
	r = newRecorder(t)
	Check(r, Config{GoRedis: &other})
	if msg := r.message(); !strings.HasPrefix(msg, `locktest: another Config.GoRedis is already registered as "go-plain-setnx", with other settings (Options {`) {
		t.Fatalf("message %q", msg)
	}
}
