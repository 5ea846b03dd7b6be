package checker

import (
	"testing"

	"github.com/locksim/locksim/sim/trace"
)

// reentrant records c1/t1 taking the lock twice (Redisson's hash count),
// and c2/t1 acquiring at 'other'.
func reentrant(other float64, deleted bool) *trace.Trace {
	b := &tb{}
	b.op("c1/t1", acq, "k", ok, 0, 0.2).cmd(0.1, "redis", "c1/t1", "(nil)", trace.KeyCreated, "EVAL", "sha1:lock", "1", "k", "30000", "c1:t1")
	b.op("c1/t1", acq, "k", ok, 1, 1.2).cmd(1.1, "redis", "c1/t1", "(nil)", "", "EVAL", "sha1:lock", "1", "k", "30000", "c1:t1")
	b.op("c1/t1", rel, "k", ok, 2, 2.2).cmd(2.1, "redis", "c1/t1", "(integer) 0", "", "EVAL", "sha1:unlock", "1", "k", "c1:t1")
	b.op("c1/t1", rel, "k", ok, 3, 3.2).cmd(3.1, "redis", "c1/t1", "(integer) 1", "", "EVAL", "sha1:unlock", "1", "k", "c1:t1")
	if deleted {
		b.del(2.5, "redis", "c9/t1", "k", true)
	} else {
		b.add(3.1, trace.Command("redis", "c1/t1", "k", []string{"DEL", "k"}, "", trace.KeyDeleted))
	}
	b.op("c2/t1", acq, "k", ok, other, other+0.2).setnx(other+0.1, "redis", "c2/t1", "k", "30")
	return b.trace()
}

func TestReentrantHolds(t *testing.T) {
	res := Check(reentrant(3.5, false), Options{LeaseMs: 30000})
	if res.Verdict != VerdictOK || checkedResult(res, "reentrant-mutex") != VerdictOK {
		t.Fatalf("verdict %s, checked %+v: %+v", res.Verdict, res.Checked, res.Violations)
	}
	res = Check(reentrant(2.6, true), Options{LeaseMs: 30000})
	v, found := findViolation(res.Violations, CauseForeignRelease, []string{"c1/t1", "c2/t1"})
	if !found || checkedResult(res, "reentrant-mutex") != VerdictViolation {
		t.Fatalf("checked %+v: %+v", res.Checked, res.Violations)
	}
	if v.UntilMs != 3000 {
		t.Fatalf("the hold should end at the outer release: %+v", v)
	}
}
