package locktest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/locktest"
	"github.com/locksim/locksim/traces/view"
)

// The README's resource example: a fenced lock of one's own (SET NX PX,
// and an INCR of a token counter for each hold) protecting an account of
// one's own, whose deposits read the balance and write it back through
// the fence.

// myFencedLock is my-lock plus a fencing token: INCR <key>:token after
// the SET NX succeeded.
type myFencedLock struct {
	myLock
	tok int64
}

func (l *myFencedLock) Acquire(t *sim.Thread) (bool, error) {
	ok, err := l.myLock.Acquire(t)
	if !ok || err != nil {
		return ok, err
	}
	r, err := t.Call(l.env.Master, "INCR", l.key+":token")
	if err != nil {
		return false, err
	}
	l.tok = r.Int
	return true, nil
}

// Token makes it a fencing lock (protocols.Fencer).
func (l *myFencedLock) Token() int64 { return l.tok }

func init() {
	err := protocols.Register(protocols.Protocol{
		Name:    "my-fenced-lock",
		Summary: "my-lock with a fencing token from INCR",
		Lease:   10 * time.Second,
		New: func(env protocols.Env, key string) protocols.Lock {
			return &myFencedLock{myLock: myLock{env: env, key: key}}
		},
	})
	if err != nil {
		panic(err)
	}
}

// accountSpec: a balance per key; deposit(n) adds n and returns the new
// balance.
var accountSpec = model.Spec{
	Name: "account",
	Init: func() any { return 0 },
	Apply: func(state any, op, arg string) (any, string) {
		n, _ := strconv.Atoi(arg)
		if op != "deposit" {
			return state, "unknown op"
		}
		b := state.(int) + n
		return b, strconv.Itoa(b)
	},
}

// deposit is one deposit of 10 inside the critical section: read the
// balance, work, write it back with the lock's token.
func deposit(s *locktest.Section, _ int) {
	s.Do("deposit", "balance", "10", func() (string, error) {
		v, err := s.Request("GET", "balance")
		if err != nil {
			return "", err
		}
		b, _ := strconv.Atoi(v)
		s.Work()
		next := strconv.Itoa(b + 10)
		reply, err := s.Write("balance", "SET", "balance", next)
		if err != nil || reply == model.ResRejected {
			return reply, err
		}
		return next, nil
	})
}

// account stores the balance in a store that checks the fence; careless
// does not (it ignores tokens).
var (
	account  = &locktest.Resource{Spec: accountSpec, Service: locktest.Store(true), Critical: deposit}
	careless = &locktest.Resource{Spec: model.Spec{Name: "careless-account", Init: accountSpec.Init, Apply: accountSpec.Apply},
		Service: locktest.Store(false), Critical: deposit}
)

// pausedHolder: c1 reads the balance, then a pause outlasts its lease;
// c2 takes the lock and deposits; c1 resumes and writes back.
var pausedHolder = protocols.Scenario{Seed: 1, Protocol: "my-fenced-lock", Clients: 2, Ops: 1, StaggerMs: 500,
	Faults: []trace.Fault{{Kind: trace.FaultGCPause, Target: "c1", AtMs: 300, DurMs: 15000}}}

// TestUserFencedLockWithUserResource is the done-when of issue 16 item 6:
// from locktest, a user's fenced lock with a user's resource keeps the
// fence under GC pauses, and fails mutual exclusion.
func TestUserFencedLockWithUserResource(t *testing.T) {
	cfg := locktest.Config{Protocol: "my-fenced-lock", Resource: account, Faults: []string{trace.FaultGCPause},
		Checks: 40, TraceDir: t.TempDir()}
	fence := cfg
	fence.Property = locktest.FenceHeld
	locktest.Check(t, fence)

	r := locktest.NewRecorder(t)
	cfg.Checks, cfg.ShrinkRuns = 1000, 300 // Check stops at the first failure
	locktest.Check(r, cfg)
	title, _, _ := strings.Cut(r.Message(), "\n")
	if !r.Failed() || title != "locksim: mutual-exclusion violated (premature-expiry)" {
		t.Fatalf("mutual exclusion under gc-pause: failed %v, first line %q", r.Failed(), title)
	}
	if !strings.Contains(r.Message(), "-locktest.replay=") {
		t.Fatalf("a user resource needs the go test replay command:\n%s", r.Message())
	}
}

// TestUserResourceChecked: the checker judges the user's resource
// against its Spec. Through the fence, the paused holder's write is
// refused and the deposits stay serial; a store that ignores the fence
// accepts it, losing a deposit (damage, from the Spec's check) and
// accepting an older token after a newer one (FenceHeld fails).
func TestUserResourceChecked(t *testing.T) {
	for _, tc := range []struct {
		res        *locktest.Resource
		prop       locktest.Invariant
		fail       bool
		model      string
		violations int
	}{
		{account, locktest.NoDamage, false, "", 0},
		{account, locktest.FenceHeld, false, "", 0},
		{careless, locktest.NoDamage, true, "resource:careless-account", 2},
		{careless, locktest.FenceHeld, true, "fenced-register", 1},
	} {
		res, err := locktest.Evaluate(locktest.Config{Protocol: "my-fenced-lock", Resource: tc.res, Property: tc.prop}, pausedHolder)
		if err != nil {
			t.Fatal(err)
		}
		f := res.Failure
		if (f != nil) != tc.fail {
			t.Fatalf("%s %s: want failure %v, got %+v", tc.res.Spec.Name, tc.prop, tc.fail, f)
		}
		if f == nil {
			continue
		}
		i := slices.IndexFunc(f.Violations, func(v checker.Violation) bool { return v.Model == tc.model })
		if len(f.Violations) != tc.violations || i < 0 {
			t.Fatalf("%s %s: violations %+v, want %d, one from %s", tc.res.Spec.Name, tc.prop, f.Violations, tc.violations, tc.model)
		}
		if v := f.Violations[i]; v.Cause != checker.CausePrematureExpiry || v.Key != "balance" || len(v.Clients) != 2 {
			t.Fatalf("the lost deposit: %+v", v)
		}
	}
}

// TestUserResourceTraceStandsAlone: a trace of a user's resource renders
// in the view, and is checked again to the same report without the Spec
// (as the locksim CLI does): the resource's recorded check is kept.
func TestUserResourceTraceStandsAlone(t *testing.T) {
	sc := pausedHolder
	sc.Workload = careless.Spec.Name
	res, err := locktest.Evaluate(locktest.Config{Protocol: "my-fenced-lock", Resource: careless, Property: locktest.NoDamage}, sc)
	if err != nil {
		t.Fatal(err)
	}
	f := res.Outcome.File
	if _, err := view.ViewFile(f); err != nil {
		t.Fatal(err)
	}
	opt := checker.Options{LeaseMs: f.Scenario.LeaseMs, Faults: f.Scenario.Faults}
	without := checker.Check(f.Trace, opt).Report
	opt.Recorded = &f.Report
	kept := checker.Check(f.Trace, opt).Report
	want, _ := json.Marshal(f.Report)
	got, _ := json.Marshal(kept)
	if !bytes.Equal(got, want) {
		t.Fatalf("re-checked without the Spec:\n%s\nrecorded:\n%s", got, want)
	}
	unknown := false
	for _, c := range without.Checked {
		unknown = unknown || c.Model == "resource:careless-account" && c.Result == checker.VerdictUnknown
	}
	if !unknown {
		t.Fatalf("checked without the Spec nor a record: %+v", without.Checked)
	}
	if _, err := traces.Recheck(f); err != nil {
		t.Fatal(err)
	}
}

// TestResourceNamesAreOwned: another resource under a taken name, or
// under a catalog workload's, is an error.
func TestResourceNamesAreOwned(t *testing.T) {
	sc := pausedHolder
	sc.Workload = account.Spec.Name
	if _, err := locktest.Evaluate(locktest.Config{Protocol: "my-fenced-lock", Resource: account}, sc); err != nil {
		t.Fatal(err)
	}
	again := *account
	for _, tc := range []struct {
		res  *locktest.Resource
		want string
	}{
		{&again, "already registered"},
		{&locktest.Resource{Spec: model.Spec{Name: "stock", Init: accountSpec.Init, Apply: accountSpec.Apply}, Critical: deposit}, "is taken"},
		{&locktest.Resource{Spec: model.Spec{Name: "a/b", Init: accountSpec.Init, Apply: accountSpec.Apply}, Critical: deposit}, "letters, digits"},
		{&locktest.Resource{Spec: model.Spec{Name: "no-critical", Init: accountSpec.Init, Apply: accountSpec.Apply}}, "no Critical"},
	} {
		_, err := locktest.Evaluate(locktest.Config{Protocol: "my-fenced-lock", Resource: tc.res}, pausedHolder)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.res.Spec.Name, err, tc.want)
		}
	}
}

// A resource of one's own: the account's deposits are checked against
// its Spec, and its fenced writes as a fenced register. Under GC pauses
// the fenced lock keeps the fence (FenceHeld) while its holds overlap
// (MutualExclusion fails).
func ExampleResource() {
	dir, _ := os.MkdirTemp("", "locktest")
	defer os.RemoveAll(dir)
	cfg := locktest.Config{
		Protocol: "my-fenced-lock",
		Resource: account,
		Faults:   []string{trace.FaultGCPause},
		Checks:   40,
		TraceDir: dir,
	}
	for _, prop := range []locktest.Invariant{locktest.FenceHeld, locktest.MutualExclusion} {
		cfg.Property = prop
		if prop == locktest.MutualExclusion {
			cfg.Checks, cfg.ShrinkRuns = 1000, 300 // Check stops at the first failure
		}
		tb := &printTB{}
		locktest.Check(tb, cfg)
		fmt.Println(prop, "failed:", tb.Failed())
	}
	// Output:
	// fence-held failed: false
	// locksim: mutual-exclusion violated (premature-expiry)
	// mutual-exclusion failed: true
}
