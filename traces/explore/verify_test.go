package explore

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

func verify(t *testing.T, opt VerifyOptions) *Verification {
	t.Helper()
	v, err := Verify(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func verifyCell(t *testing.T, v *Verification, protocol, fault string) VerifyCell {
	t.Helper()
	for _, c := range v.Cells {
		if c.Protocol == protocol && c.Fault == fault {
			return c
		}
	}
	t.Fatalf("no cell %s/%s", protocol, fault)
	return VerifyCell{}
}

// TestVerifyVerdicts: a pause longer than the lease breaks setnx-del
// (seed 002 section 2); a lost reply cannot make setnx-lua-del grant a
// held lock (its acquire is SET NX and its release compares the token);
// local-mutex fails with no fault; redlock has no replicas to fail over.
func TestVerifyVerdicts(t *testing.T) {
	v := verify(t, VerifyOptions{Protocols: []string{"setnx-del", "setnx-lua-del", "local-mutex"},
		Faults: []string{"gc-pause", "reply-loss"}})
	v.Cells = append(v.Cells, verify(t, VerifyOptions{Protocols: []string{"redlock"}, Faults: []string{"failover"}}).Cells...)
	c := verifyCell(t, v, "setnx-del", "gc-pause")
	if c.Verdict != CellUnsafe || !strings.Contains(c.Claim, "unsafe: one gc-pause of c") || !strings.Contains(c.Cause, "mutual-exclusion") {
		t.Errorf("setnx-del/gc-pause: %+v", c)
	}
	c = verifyCell(t, v, "setnx-lua-del", "reply-loss")
	if c.Verdict != CellBounded || c.Runs != c.Steps*2*c.Variants || c.Steps < 10 ||
		!strings.Contains(c.Claim, "no single reply-loss at any of") {
		t.Errorf("setnx-lua-del/reply-loss: %+v", c)
	}
	if c := verifyCell(t, v, "local-mutex", "gc-pause"); c.Verdict != CellUnsafeNoFault || c.Runs != 0 {
		t.Errorf("local-mutex: %+v", c)
	}
	if c := verifyCell(t, v, "redlock", "failover"); c.Verdict != CellNA {
		t.Errorf("redlock/failover: %+v", c)
	}
}

// TestVerifyDoesNotDependOnWorkers: the first breaking placement is the
// first in step order, whatever the scheduling.
func TestVerifyDoesNotDependOnWorkers(t *testing.T) {
	opt := VerifyOptions{Protocols: []string{"setnx-get-del", "redisson"}, Faults: []string{"gc-pause", "clock-jump"}}
	opt.Workers = 1
	a := verify(t, opt)
	opt.Workers = 4
	b := verify(t, opt)
	for _, v := range []*Verification{a, b} { // wall time is the machine's
		for i := range v.Cells {
			v.Cells[i].WallMs = 0
		}
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("one worker:\n%+v\nfour:\n%+v", a.Cells, b.Cells)
	}
}

// TestFaultAtAStepLeavesTheRunBeforeItUnchanged is the premise of
// verify: placing a fault at a step's time changes nothing before it.
func TestFaultAtAStepLeavesTheRunBeforeItUnchanged(t *testing.T) {
	base := protocols.Scenario{Seed: 1, Protocol: "redisson", Clients: 2, Ops: 1}
	free, err := traces.Evaluate(base)
	if err != nil {
		t.Fatal(err)
	}
	before := func(tr *trace.Trace, ms int64) []trace.Event {
		var out []trace.Event
		for _, e := range tr.Events {
			if e.T < ms*1e6 {
				out = append(out, e)
			}
		}
		return out
	}
	steps := stepsOf(free.File.Trace)
	if len(steps) < 5 {
		t.Fatalf("%d steps", len(steps))
	}
	changed := 0
	for _, st := range steps {
		sc := base
		sc.Faults = []trace.Fault{{Kind: trace.FaultGCPause, Target: "c1", AtMs: st.AtMs, DurMs: 40000}}
		o, err := traces.Evaluate(sc)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(before(o.File.Trace, st.AtMs), before(free.File.Trace, st.AtMs)) {
			t.Fatalf("a pause at %d ms (%s) changed the run before it", st.AtMs, st.Label)
		}
		if o.File.Trace.Hash() != free.File.Trace.Hash() {
			changed++
		}
	}
	if changed == 0 {
		t.Fatal("no pause changed the run at all")
	}
}

func TestStepsAreTheDistinctMillisecondsOfTheRun(t *testing.T) {
	o, err := traces.Evaluate(protocols.Scenario{Seed: 1, Protocol: "setnx-lua-del", Clients: 2, Ops: 1})
	if err != nil {
		t.Fatal(err)
	}
	tr := o.File.Trace
	want := map[int64]bool{0: true}
	for _, e := range tr.Events {
		want[e.T/1e6] = true
	}
	for _, op := range tr.Ops {
		want[op.Call/1e6] = true
		if !op.Open() {
			want[op.Return/1e6] = true
		}
	}
	steps := stepsOf(tr)
	if len(steps) != len(want) {
		t.Fatalf("%d steps, %d distinct ms", len(steps), len(want))
	}
	for i, st := range steps {
		if !want[st.AtMs] || (i > 0 && st.AtMs <= steps[i-1].AtMs) || st.Label == "" {
			t.Fatalf("step %d: %+v", i, st)
		}
	}
	acquired := false
	for _, st := range steps {
		acquired = acquired || strings.Contains(st.Label, "acquire") && strings.HasSuffix(st.Label, "returned ok")
	}
	if !acquired {
		t.Fatalf("no step names an acquire's return: %+v", steps)
	}
}

// TestVerifyPinnedVerdicts pins bounded verdicts of the default scope (2
// clients, 1 operation each, unique-name), argued from the sources:
//
//   - setnx-del under gc-pause: nothing renews the 60 s key, so a pause of
//     two leases while c2 holds it (or while its acquire is in flight) lets
//     the key expire and c1 take it while c2 still works.
//   - redislock-go under slow-work: no watchdog; work longer than the 10 s
//     lease outlives the key and the other client takes it.
//   - redislock-go under watchdog-stall: it has no background thread, so
//     a stall changes nothing.
//   - setnx-lua-del under reply-loss: a lost SET NX reply leaves an orphan
//     key until its TTL (lost progress); a lost compare-and-delete reply
//     leaves a key only its owner could delete; neither grants a held lock.
//   - setnx-lua-del under failover: with replication a lease behind, the
//     promoted replica lacks c1's key; with a 1 s down-after the promotion
//     comes while c1 still works its 5 s, and c2 takes the key.
//   - fenced under slow-work: its watchdog renews the key every 10 s while
//     the section runs, however long.
//   - local-mutex fails without faults: a monitor excludes threads of one
//     process only.
//   - redlock has no replicas to fail over.
func TestVerifyPinnedVerdicts(t *testing.T) {
	want := []struct{ protocol, fault, verdict string }{
		{"setnx-del", "gc-pause", CellUnsafe},
		{"redislock-go", "slow-work", CellUnsafe},
		{"redislock-go", "watchdog-stall", CellBounded},
		{"setnx-lua-del", "reply-loss", CellBounded},
		{"setnx-lua-del", "failover", CellUnsafe},
		{"fenced", "slow-work", CellBounded},
		{"local-mutex", "gc-pause", CellUnsafeNoFault},
		{"redlock", "failover", CellNA},
	}
	for _, w := range want {
		v := verify(t, VerifyOptions{Protocols: []string{w.protocol}, Faults: []string{w.fault}})
		if c := v.Cells[0]; c.Verdict != w.verdict {
			t.Errorf("%s / %s: want %s, got %s: %s", w.protocol, w.fault, w.verdict, c.Verdict, c.Claim)
		}
	}
}
