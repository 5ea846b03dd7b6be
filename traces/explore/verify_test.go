package explore

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/locksim/locksim/checker"
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
	if c.Verdict != cellBounded || c.Runs != c.Steps*2*c.Variants || c.Steps < 10 ||
		!strings.HasPrefix(c.Claim, "verified: every single reply-loss fault at every step, within 2 clients x 2 ops") {
		t.Errorf("setnx-lua-del/reply-loss: %+v", c)
	}
	if c := verifyCell(t, v, "local-mutex", "gc-pause"); c.Verdict != CellUnsafeNoFault || c.Runs != 0 {
		t.Errorf("local-mutex: %+v", c)
	}
	if c := verifyCell(t, v, "redlock", "failover"); c.Verdict != cellNA {
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
//   - redlock under node-restart, one fault: the holder owns all five
//     keys and one master restarting empty frees one of them, so no
//     second majority forms (Kleppmann's case needs a bare quorum).
//   - redlock under node-restart, two faults: with the holder cut from
//     two masters from the start it owns a bare three, one of them
//     restarts empty, and the other client takes that one and the two
//     the holder could not reach: a second majority.
//
// The redlock cells run 2,500 and 3,209 placements (about 20 s of CPU on
// the loaded machine), so -race and -short leave them to .ci/run.
func TestVerifyPinnedVerdicts(t *testing.T) {
	want := []struct {
		protocol, fault string
		depth           int
		verdict         string
	}{
		{"setnx-del", "gc-pause", 1, CellUnsafe},
		{"redislock-go", "slow-work", 1, CellUnsafe},
		{"redislock-go", "watchdog-stall", 1, cellBounded},
		{"setnx-lua-del", "reply-loss", 1, cellBounded},
		{"setnx-lua-del", "failover", 1, CellUnsafe},
		{"fenced", "slow-work", 1, cellBounded},
		{"local-mutex", "gc-pause", 1, CellUnsafeNoFault},
		{"redlock", "failover", 1, cellNA},
		{"redlock", "node-restart", 1, CellUnsafe}, // re-pinned: the 7.84 s hold near the 8 s lease (the new bound) breaks it
		{"redlock", "node-restart", 2, CellUnsafe},
	}
	for _, w := range want {
		if w.protocol == "redlock" && w.fault != "failover" && (raceEnabled || testing.Short()) {
			continue
		}
		v := verify(t, VerifyOptions{Protocols: []string{w.protocol}, Faults: []string{w.fault}, Depth: w.depth})
		if c := v.Cells[0]; c.Verdict != w.verdict {
			t.Errorf("%s / %s, depth %d: want %s, got %s: %s", w.protocol, w.fault, w.depth, w.verdict, c.Verdict, c.Claim)
		}
	}
}

// TestStandingSplitsCutAMinority: on five independent masters each client
// is cut from each pair of them (a bare quorum left); with replicas, each
// replica is left stale with the sentinel cut from the others; a single
// node has none.
func TestStandingSplitsCutAMinority(t *testing.T) {
	sc := func(p, topo string) scope {
		base, err := protocols.Scenario{Seed: 1, Protocol: p, Clients: 2, Ops: 1, Topology: topo}.Normalize()
		if err != nil {
			t.Fatal(err)
		}
		return scope{sc: base, clients: []string{"c1", "c2"}}
	}
	if got := sc("redlock", "").standing(); len(got) != 20 || len(got[0].faults) != 2 || got[0].label != "c1 cut from redis-1,redis-2" {
		t.Errorf("redlock: %d splits, first %+v", len(got), got[0])
	}
	if got := sc("redisson-3.17.0", protocols.TopoReplicated).standing(); len(got) != 2 || got[0].faults[0].Target != "redis<->redis-r1" || got[0].faults[1].Target != "sentinel<->redis-r2" {
		t.Errorf("replicated: %+v", got)
	}
	if got := sc("setnx-del", "").standing(); len(got) != 0 {
		t.Errorf("single: %+v", got)
	}
}

// TestBareQuorumRestartBreaksRedlock is Kleppmann's restart case as a
// depth-2 placement: c2 cut from two of five masters holds a bare quorum,
// one of its three restarts empty, and c1 gets a majority. The restart
// alone, without the split, leaves c2 four keys: no second majority.
func TestBareQuorumRestartBreaksRedlock(t *testing.T) {
	base, err := protocols.Scenario{Seed: 1, Protocol: "redlock", Workload: "unique-name", Clients: 2, Ops: 1}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	s := scope{sc: base, clients: []string{"c1", "c2"}}
	var split *variant
	for _, v := range s.standing() {
		if v.label == "c2 cut from redis-1,redis-2" {
			split = &v
		}
	}
	restart := one(trace.FaultNodeRestart, "redis-5", 100, 0, "restart")
	o, err := traces.Evaluate(protocols.Scenario{Seed: base.Seed, Protocol: "redlock", Workload: "unique-name", Clients: 2, Ops: 1,
		Faults: split.faults})
	if err != nil {
		t.Fatal(err)
	}
	broke, alone := false, false
	for _, st := range stepsOf(o.File.Trace) {
		j := verifyJob{placement: placement{st, 0, &restart}, second: &placement{step{}, 0, split}}
		sc := placed(protocols.Scenario{Seed: base.Seed, Protocol: "redlock", Workload: "unique-name", Clients: 2, Ops: 1}, j)
		broke = broke || judged(t, sc)
		j.second = nil
		alone = alone || judged(t, placed(protocols.Scenario{Seed: base.Seed, Protocol: "redlock", Workload: "unique-name", Clients: 2, Ops: 1}, j))
	}
	if !broke || alone {
		t.Fatalf("restart of redis-5 with c2 on a bare quorum breaks redlock: %v (want true); alone: %v (want false)", broke, alone)
	}
}

func judged(t *testing.T, sc protocols.Scenario) bool {
	t.Helper()
	o, err := traces.Evaluate(sc)
	if err != nil {
		t.Fatal(err)
	}
	return judge(o.File.Report, o.File.Trace, false).Unsafe
}

// TestVerifyCountsPlacementsNotJudged: a placement an event budget
// stopped is not judged, so a cell no placement broke is inconclusive,
// not verified, and its claim says how many were not judged and why;
// they are the placements whose runs the checker calls unknown. With
// the fault-free run stopped, the cell claims nothing.
func TestVerifyCountsPlacementsNotJudged(t *testing.T) {
	opt := VerifyOptions{Protocols: []string{"setnx-lua-del"}, Faults: []string{"reply-loss"}, MaxEvents: 300}
	c := verify(t, opt).Cells[0]
	opt, _ = opt.withDefaults()
	rows, err := rowProtocols(opt.Protocols, nil)
	if err != nil {
		t.Fatal(err)
	}
	var bases []protocols.Scenario
	_, jobs, err := opt.plan(rows[0], "reply-loss", 0, &bases)
	if err != nil {
		t.Fatal(err)
	}
	unknown := 0
	for _, j := range jobs {
		o, err := traces.Evaluate(placed(bases[j.base], j))
		if err != nil {
			t.Fatal(err)
		}
		if o.File.Report.Verdict == checker.VerdictUnknown {
			unknown++
		}
	}
	if unknown == 0 || unknown == len(jobs) {
		t.Fatalf("want some placements stopped by the budget: %d of %d", unknown, len(jobs))
	}
	if c.Verdict != CellUnknown || c.Unknown != unknown || c.Runs != len(jobs) || c.Evidence.Unknown != unknown ||
		fmt.Sprint(c.UnknownWhy) != fmt.Sprint([]WhyCount{{Why: "stopped by the event budget (raise it with --max-events)", Runs: unknown}}) {
		t.Errorf("%d of %d placements unknown; the cell: %s, %d of %d not judged %v", unknown, len(jobs), c.Verdict, c.Unknown, c.Runs, c.UnknownWhy)
	}
	if !strings.HasPrefix(c.Claim, "inconclusive: trying every single reply-loss fault at every step, within ") ||
		!strings.HasSuffix(c.Claim, fmt.Sprintf("none of the %d judged broke it; not judged: %d stopped by the event budget (raise it with --max-events), so this is not verified",
			len(jobs)-unknown, unknown)) {
		t.Errorf("claim: %s", c.Claim)
	}

	opt.MaxEvents = 10
	c = verify(t, opt).Cells[0]
	if c.Verdict != CellUnknown || c.Runs != 0 ||
		!strings.HasSuffix(c.Claim, "was not judged: stopped by the event budget (raise it with --max-events), so nothing is verified") {
		t.Errorf("with the fault-free run stopped: %s, %d runs: %s", c.Verdict, c.Runs, c.Claim)
	}
}
