package locktest

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// TestFenceHeldJudgesTheFencedRegister checks that FenceHeld counts only
// what the fenced-register check found.
func TestFenceHeldJudgesTheFencedRegister(t *testing.T) {
	c := &config{Config: Config{Property: FenceHeld}}
	stale := checker.Violation{Property: checker.PropDamage, Cause: checker.CausePrematureExpiry, Model: "fenced-register"}
	dup := checker.Violation{Property: checker.PropDamage, Cause: checker.CausePrematureExpiry, Model: "unique-set"}
	mutex := checker.Violation{Property: checker.PropMutex, Cause: checker.CausePrematureExpiry}
	if f := c.judge(checker.Report{Violations: []checker.Violation{mutex, dup}, Damage: checker.Damage{DuplicateInserts: 1}}, ""); f != nil {
		t.Fatalf("fence held, but judged %+v", f)
	}
	if f := c.judge(checker.Report{Violations: []checker.Violation{mutex, stale}}, ""); f == nil || f.Violations[0].Model != "fenced-register" {
		t.Fatalf("stale write accepted, judged %+v", f)
	}
}

// TestFencedLockHoldsTheFence checks, from locktest, that the fenced lock
// keeps its promise under GC pauses (no write under an older token
// accepted after a newer one) while it breaks mutual exclusion.
func TestFencedLockHoldsTheFence(t *testing.T) {
	Check(t, Config{Protocol: "fenced", Workload: "unique-name", Faults: []string{trace.FaultGCPause}, Property: FenceHeld, Checks: 40})
	ref := protocols.Scenario{Seed: 1, Protocol: "fenced", Workload: "unique-name", Clients: 2, Ops: 1, StaggerMs: 500,
		Faults: []trace.Fault{{Kind: trace.FaultGCPause, Target: "c1", AtMs: 1000, DurMs: 70_000}}}
	for _, c := range []struct {
		prop Invariant
		fail bool
	}{{MutualExclusion, true}, {FenceHeld, false}} {
		res, err := Evaluate(Config{Protocol: "fenced", Property: c.prop}, ref)
		if err != nil || (res.Failure != nil) != c.fail {
			t.Fatalf("%s: want failure %v: %v %+v", c.prop, c.fail, err, res.Failure)
		}
	}
}

type nopLock struct{}

func (nopLock) Acquire(*sim.Thread) (bool, error) { return true, nil }
func (nopLock) Release(*sim.Thread) (bool, error) { return true, nil }

// TestRegisteringAnotherLockUnderANameFails checks that a value built
// anew for each run of a test (go test -count=N) may reuse its name,
// while a lock with other settings under a name already taken is an
// error that names the field the user set.
func TestRegisteringAnotherLockUnderANameFails(t *testing.T) {
	mk := func() *protocols.Protocol {
		return &protocols.Protocol{Name: "test-dup-lock", Lease: time.Second,
			New: func(protocols.Env, string) protocols.Lock { return nopLock{} }}
	}
	first := mk()
	for _, lock := range []*protocols.Protocol{first, first, mk()} {
		if _, err := (Config{Lock: lock}).prepare(); err != nil {
			t.Fatal(err)
		}
	}
	longer := mk()
	longer.Lease = 2 * time.Second
	if _, err := (Config{Lock: longer}).prepare(); err == nil ||
		!strings.Contains(err.Error(), `another Config.Lock is already registered as "test-dup-lock", with other settings (Lease 2s, earlier 1s)`) {
		t.Fatalf("another lock under the same name: err %v", err)
	}
	g := &GoRedis{Name: "test-dup-lock", New: newPlainLock, Lease: time.Second}
	if _, err := (Config{GoRedis: g}).prepare(); err == nil ||
		!strings.Contains(err.Error(), `Config.GoRedis "test-dup-lock": the name is already registered by a Config.Lock`) {
		t.Fatalf("a GoRedis under a Config.Lock's name: err %v", err)
	}
	catalog := mk()
	catalog.Name = "setnx-del"
	if _, err := (Config{Lock: catalog}).prepare(); err == nil || !strings.Contains(err.Error(), "taken") {
		t.Fatalf("a lock under a catalog name: err %v", err)
	}
	g = &GoRedis{Name: "setnx-del", New: newPlainLock, Lease: time.Second}
	if _, err := (Config{GoRedis: g}).prepare(); err == nil ||
		!strings.Contains(err.Error(), `Config.GoRedis: protocol name "setnx-del" is taken (by the catalog or protocols.Register): give Config.GoRedis its own name`) {
		t.Fatalf("a GoRedis under a catalog name: err %v", err)
	}
}

// FailOn replaces Property with the CLI's exit-status policy, decided
// by the checker: the fenced lock under a pause longer than its lease
// breaks mutual exclusion, and fencing keeps the data intact.
func TestFailOnFollowsTheChecker(t *testing.T) {
	ref := protocols.Scenario{Seed: 1, Protocol: "fenced", Workload: "unique-name", Clients: 2, Ops: 1, StaggerMs: 500,
		Faults: []trace.Fault{{Kind: trace.FaultGCPause, Target: "c1", AtMs: 1000, DurMs: 70_000}}}
	for _, c := range []struct {
		policy string
		fail   bool
	}{{"any", true}, {"exclusion", true}, {"damage", false}, {"ownership,liveness", false}} {
		p, err := checker.ParseFailOn(c.policy)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Evaluate(Config{Protocol: "fenced", FailOn: p}, ref)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Failure != nil; got != c.fail || got != res.Outcome.File.Report.Fails(p) {
			t.Fatalf("FailOn %s: failure %v, want %v: %+v", c.policy, got, c.fail, res.Failure)
		}
	}
}
