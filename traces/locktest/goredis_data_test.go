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
	return &GoRedis{Name: "go:data-pool", Lease: 10 * time.Second,
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
