package traces

import (
	"slices"
	"strings"
	"testing"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// TestAdviceOnReferences pins the changes offered for the reference
// timelines, and re-runs each offered change's scenario: its violation
// must be gone in that run too.
func TestAdviceOnReferences(t *testing.T) {
	want := map[string][]string{ // scenario: changes offered, each by its result's start
		"pause-no-fencing":                       {"fencing: mutual-exclusion still broken (premature-expiry), no damage, 1 stale write rejected by fencing", "a longer lease: no violation"},
		"non-atomic-release":                     {"an owner-checked release: no violation"},
		"foreign-release":                        {"an owner-checked release:", "a longer lease: no violation"},
		"pause-during-acquire":                   {"the validity check: no violation"},
		"redisson-3712-stale-renewal-entry":      {"redisson-3.16.1: no violation", "a longer lease: no violation"},
		"redisson-2515-failed-renewal-entry":     {"redisson: no violation"},
		"redisson-4305-unsynced-renewal":         {"redisson-latest: no violation"},
		"redisson-7272-watchdog-outlives-unlock": {"redisson-pr7277: no violation"},
		"orphan-acquire":                         nil,
		// RFencedLock's WAIT and watchdog, not its tokens, keep these
		// re-runs clean: fencing refuses no write, so is not offered.
		"failover-before-replication": nil,
		"delayed-write":               nil,
	}
	for name, results := range want {
		ref, err := LookupReference(name)
		if err != nil {
			t.Fatal(err)
		}
		o, err := Execute(ref.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		advice := Advise(o)
		if len(advice) != len(results) {
			t.Errorf("%s: %d changes offered, want %d: %+v", name, len(advice), len(results), advice)
			continue
		}
		for i, a := range advice {
			if !strings.HasPrefix(a.Result, results[i]) {
				t.Errorf("%s: change %d: %q, want it to start %q", name, i, a.Result, results[i])
			}
			re, err := Execute(a.Scenario)
			if err != nil {
				t.Fatal(err)
			}
			if re.File.TraceSHA256 != a.TraceSHA256 {
				t.Errorf("%s: %q: its scenario runs to trace %s, advice says %s", name, a.Change, re.File.TraceSHA256, a.TraceSHA256)
			}
			for _, v := range re.File.Report.Violations {
				if slices.Contains(a.Properties, v.Property) && slices.Contains(a.Causes, v.Cause) {
					t.Errorf("%s: %q leaves %s (%s)", name, a.Change, v.Property, v.Cause)
				}
			}
			if d, _ := re.File.Report.Harm(); slices.Contains(a.Properties, checker.PropDamage) && d.Total() > 0 {
				t.Errorf("%s: %q leaves damage %+v", name, a.Change, d)
			}
		}
	}
}

// TestFencingAdviceRefusedAWrite: fencing is offered only when its re-run
// shows the fence refusing a stale write. The lock that carries the
// tokens also brings a watchdog and a WAIT for the replicas, either of
// which can keep a re-run clean with no write ever refused; the report's
// stale_writes_rejected is the fence's own count. Every reference
// scenario is tried.
func TestFencingAdviceRefusedAWrite(t *testing.T) {
	fencing := 0
	for _, ref := range References() {
		o, fenced := runFenced(t, ref.Scenario)
		for _, a := range Advise(o) {
			re, refenced := runFenced(t, a.Scenario)
			if fenced || !refenced {
				continue // not the change to a fenced lock
			}
			fencing++
			if n := re.File.Report.Damage.StaleWritesRejected; n == 0 {
				t.Errorf("%s: %q offered (%s) although its re-run refused no stale write", ref.Name, a.Change, a.Result)
			}
		}
	}
	if fencing == 0 {
		t.Error("no reference scenario was offered fencing")
	}
}

// runFenced runs sc and says whether its lock hands out fencing tokens.
func runFenced(t *testing.T, sc protocols.Scenario) (*Outcome, bool) {
	t.Helper()
	o, err := Execute(sc)
	if err != nil {
		t.Fatal(err)
	}
	p, err := o.File.Scenario.LookupProtocol()
	if err != nil {
		t.Fatal(err)
	}
	return o, protocols.IsFenced(p)
}

// TestOwnerCheckedRenewalAdviceRefusedARenewal: the owner-checked renewal
// swaps setnx-daemon-renew for a whole other lock (Redisson's), so it is
// offered only when its re-run shows a renewal refused because the key
// was not the renewer's. Swarm draws over setnx-daemon-renew's faults
// include re-runs whose foreign renewal is gone for other reasons.
func TestOwnerCheckedRenewalAdviceRefusedARenewal(t *testing.T) {
	var renewal remedy
	for _, r := range remedies {
		if slices.Contains(r.causes, checker.CauseForeignRenewal) {
			renewal = r
		}
	}
	offered := 0
	for seed := uint64(1); seed <= 40; seed++ {
		sc := protocols.Scenario{Protocol: "setnx-daemon-renew", Workload: "unique-name", Seed: seed, Swarm: true,
			FaultKinds: []string{"gc-pause", "watchdog-stall", "slow-work", "partition", "delay"}}
		o, err := Execute(sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range Advise(o) {
			if a.Change != renewal.change {
				continue
			}
			offered++
			re, err := Execute(a.Scenario)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(re.File.Trace.Ops, func(op trace.Op) bool {
				return op.Kind == model.OpRenew && op.Result == model.ResNotOwner
			}) {
				t.Errorf("seed %d: %q offered (%s) although no renewal of its re-run was refused", seed, a.Change, a.Result)
			}
		}
	}
	if offered == 0 {
		t.Error("the owner-checked renewal was never offered")
	}
}

// TestAdviceThatDoesNotHelpIsNotOffered: a change whose re-run still has
// the violation is never offered. An owner-checked release does not stop
// a pause from outlasting the lease.
func TestAdviceThatDoesNotHelpIsNotOffered(t *testing.T) {
	ref, _ := LookupReference("pause-no-fencing")
	o, err := Execute(ref.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	r := remedy{change: "compare-and-delete", short: "cad", properties: exclusion,
		causes: []string{checker.CausePrematureExpiry}, apply: withProtocol("setnx-lua-del")}
	if !r.targets(o.File.Report) {
		t.Fatal("pause-no-fencing has no premature expiry")
	}
	if a, ok := r.try(o.File.Scenario, o.File.Report); ok {
		t.Errorf("offered %q although its re-run found %q", a.Change, a.Result)
	}
}

// TestRedissonReleases: each Redisson bug shows on the releases it
// affects and not on the one that fixed it; one released version is the
// one to use.
func TestRedissonReleases(t *testing.T) {
	rs, err := RedissonReleases()
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]map[string]bool{}
	use := 0
	for _, r := range rs {
		shown[r.Protocol] = map[string]bool{}
		for _, b := range r.Bugs {
			shown[r.Protocol][b] = true
		}
		if r.Use {
			use++
		}
	}
	if use != 1 {
		t.Errorf("%d releases marked to use, want 1: %+v", use, rs)
	}
	for _, b := range Bugs() {
		if b.Bug.Library != "Redisson" {
			continue
		}
		if !shown[b.Scenario.Protocol][b.Bug.ID] {
			t.Errorf("%s: not shown on %s, the release its scenario runs", b.Bug.ID, b.Scenario.Protocol)
		}
		if fix := b.Bug.FixedProtocol; fix != "" && shown[fix][b.Bug.ID] {
			t.Errorf("%s: shown on %s, the release that fixed it", b.Bug.ID, fix)
		}
	}
}
