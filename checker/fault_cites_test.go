package checker

import (
	"strings"
	"testing"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// pausedByFault is the paused-holder history whose pause the schedule's
// second fault caused (as the sim records it: the pause and its resume
// carry the fault's id).
func pausedByFault() *trace.Trace {
	b := &tb{}
	b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "10")
	b.add(1, trace.Pause("c1", trace.FaultGCPause, dur(20)).WithFault(2))
	b.add(21, trace.Resume("c1").WithFault(2)).expire(10.1, "redis", "k")
	b.op("c2/t1", acq, "k", ok, 10.2, 10.3).setnx(10.25, "redis", "c2/t1", "k", "10")
	b.op("c2/t1", rel, "k", ok, 15, 15.1).del(15.05, "redis", "c2/t1", "k", true)
	b.op("c1/t1", rel, "k", model.ResNotOwner, 21, 21.1).del(21.05, "redis", "c1/t1", "k", false)
	return b.trace()
}

func TestViolationCitesFaultByID(t *testing.T) {
	schedule := []trace.Fault{
		{Kind: trace.FaultClockDrift, Target: "redis", Value: 10},
		{Kind: trace.FaultGCPause, Target: "c1", AtMs: 1000, DurMs: 20000},
	}
	res := Check(pausedByFault(), Options{LeaseMs: 10000, Faults: schedule})
	v, found := findViolation(res.Violations, CausePrematureExpiry, []string{"c1/t1", "c2/t1"})
	if !found {
		t.Fatalf("no premature expiry: %+v", res.Violations)
	}
	if len(v.Faults) != 1 || v.Faults[0].ID != 2 || v.Faults[0].Entry == nil || *v.Faults[0].Entry != schedule[1] {
		t.Fatalf("cited faults %+v, want #2 with its entry", v.Faults)
	}
	if want := "fault #2 (gc-pause:c1@1000+20000)"; !strings.Contains(v.Explanation, want) {
		t.Fatalf("explanation %q does not cite %q", v.Explanation, want)
	}
	// Without the schedule the id alone is cited; a report checked again
	// with its own violations kept does not cite twice.
	bare := Check(pausedByFault(), Options{LeaseMs: 10000})
	v, _ = findViolation(bare.Violations, CausePrematureExpiry, []string{"c1/t1", "c2/t1"})
	if len(v.Faults) != 1 || v.Faults[0].Entry != nil || strings.Count(v.Explanation, "fault #2") != 1 {
		t.Fatalf("without a schedule: faults %+v, explanation %q", v.Faults, v.Explanation)
	}
	vs := []Violation{v}
	citeFaults(pausedByFault(), schedule, vs)
	if strings.Count(vs[0].Explanation, "fault #2") != 1 {
		t.Fatalf("cited twice: %q", vs[0].Explanation)
	}
}
