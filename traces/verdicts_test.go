package traces

import (
	"testing"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// TestSetnxDelUnsafeUnderGCPause explores seeds until the checker reports
// a premature expiry caused by a pause, within a bounded number of runs.
func TestSetnxDelUnsafeUnderGCPause(t *testing.T) {
	const budget = 200
	for s := range uint64(budget) {
		o, err := Execute(protocols.Scenario{Seed: s, Protocol: "setnx-del", Workload: "unique-name", FaultKinds: []string{"gc-pause"}})
		if err != nil {
			t.Fatal(err)
		}
		r := o.File.Report
		if r.Verdict != checker.VerdictViolation {
			continue
		}
		for _, v := range r.Violations {
			if v.Property == checker.PropMutex && v.Cause == checker.CausePrematureExpiry && v.Reason == checker.ReasonPaused {
				t.Logf("seed %d: %s", s, v.Explanation)
				return
			}
		}
		t.Fatalf("seed %d: violation without a pause-caused premature expiry: %+v", s, r.Violations)
	}
	t.Fatalf("no violation found in %d runs of setnx-del under gc-pause", budget)
}

func TestSetnxLuaDelSafeWithoutFaults(t *testing.T) {
	n := 2000
	if testing.Short() || raceEnabled {
		n = 200
	}
	for _, wl := range []string{"stock", "unique-name"} {
		for s := range uint64(n / 2) {
			o, err := Execute(protocols.Scenario{Seed: s, Protocol: "setnx-lua-del", Workload: wl})
			if err != nil {
				t.Fatal(err)
			}
			if v := o.File.Report.Verdict; v != checker.VerdictOK {
				t.Fatalf("%s seed %d: verdict %s: %+v", wl, s, v, o.File.Report.Violations)
			}
			if d := o.File.Report.Damage; d.Total() != 0 {
				t.Fatalf("%s seed %d: damage %+v without a violation", wl, s, d)
			}
		}
	}
}

func TestDefaultReferenceFindsAndExplains(t *testing.T) {
	ref, err := LookupReference(DefaultReference)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Execute(ref.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	r := o.File.Report
	if r.Verdict != checker.VerdictViolation || len(r.Violations) == 0 {
		t.Fatalf("verdict %s", r.Verdict)
	}
	v := r.Violations[0]
	if v.Cause != checker.CausePrematureExpiry || v.Reason != checker.ReasonPaused || len(v.Clients) != 2 ||
		v.Clients[0] != "c1/t1" || v.Clients[1] != "c2/t1" {
		t.Fatalf("first violation %+v", v)
	}
	if r.Damage.DuplicateInserts != 1 {
		t.Fatalf("damage %+v, want one duplicate insert", r.Damage)
	}
}

func BenchmarkRunDefault(b *testing.B) {
	ref, _ := LookupReference(DefaultReference)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Execute(ref.Scenario); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunSetnxDelGCPause(b *testing.B) {
	b.ReportAllocs()
	var s uint64
	for b.Loop() {
		s++
		if _, err := Execute(protocols.Scenario{Seed: s, Protocol: "setnx-del", FaultKinds: []string{"gc-pause"}}); err != nil {
			b.Fatal(err)
		}
	}
}

// setnx-lua-del on a replicated deployment: under failover (a master that
// dies while replication lags, a sentinel that promotes quickly) the lock
// is lost on promotion; without faults it is safe.
func TestSetnxLuaDelLosesTheLockOnFailover(t *testing.T) {
	base := protocols.Scenario{Protocol: "setnx-lua-del", Workload: "unique-name", Topology: protocols.TopoReplicated,
		DownAfterMs: 1000, DiscoveryMs: 200}
	found := false
	for s := uint64(0); s < 300 && !found; s++ {
		sc := base
		sc.Seed, sc.FaultKinds = s, []string{"failover"}
		o, err := Execute(sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range o.File.Report.Violations {
			if v.Property == checker.PropMutex && v.Cause == checker.CauseLostAfterFailover {
				t.Logf("seed %d: %s", s, v.Explanation)
				found = true
			}
		}
	}
	if !found {
		t.Fatal("no lock lost on promotion in 300 seeds")
	}
	n := 100
	if testing.Short() || raceEnabled {
		n = 20
	}
	for s := range uint64(n) {
		sc := base
		sc.Seed = s
		o, err := Execute(sc)
		if err != nil {
			t.Fatal(err)
		}
		if v := o.File.Report.Verdict; v != checker.VerdictOK {
			t.Fatalf("seed %d without faults: %s %+v", s, v, o.File.Report.Violations)
		}
	}
}

// Redisson's watchdog keeps a 30 s lease alive through a 45 s critical
// section; its renewals are in the history, and the run is safe.
func TestRedissonWatchdogRenewalsAreRecorded(t *testing.T) {
	o, err := Execute(protocols.Scenario{Seed: 1, Protocol: "redisson", Workload: "unique-name", Clients: 2, Ops: 1, StaggerMs: 500,
		Faults: []trace.Fault{{Kind: trace.FaultSlowWork, Target: "c1", AtMs: 0, DurMs: 1000, Value: 40_000}}})
	if err != nil {
		t.Fatal(err)
	}
	renewals := 0
	for _, op := range o.File.Trace.Ops {
		if op.Kind == model.OpRenew && op.Result == model.ResOK && op.Process == "c1" {
			renewals++
		}
	}
	if renewals < 4 || o.File.Report.Verdict != checker.VerdictOK {
		t.Fatalf("%d renewals, verdict %s: want 4 (every 10 s of 45 s) and ok", renewals, o.File.Report.Verdict)
	}
}
