package checker

import (
	"testing"

	"github.com/locksim/locksim/model"
)

// TestHeadlineIsTheDefect checks that when a paused holder's key expires
// and its renewer, which checks no owner, then extends the next holder's
// key, the headline is the foreign renewal (the defect a correct renewer
// would not have), with the pause's premature expiry after it.
func TestHeadlineIsTheDefect(t *testing.T) {
	b := &tb{}
	b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "10")
	b.pause(1, "c1", 14).expire(10.1, "redis", "k")
	b.op("c2/t1", acq, "k", ok, 11, 11.1).setnx(11.05, "redis", "c2/t1", "k", "10")
	b.cmd(15.5, "redis", "c1/daemon", "(integer) 1", "", "EXPIRE", "k", "10")
	b.op("c2/t1", rel, "k", ok, 15.8, 15.9).del(15.85, "redis", "c2/t1", "k", true)
	b.op("c1/t1", rel, "k", model.ResNotOwner, 16, 16.1).del(16.05, "redis", "c1/t1", "k", false)
	res := Check(b.trace(), Options{LeaseMs: 10000})
	if len(res.Violations) < 2 {
		t.Fatalf("violations %+v", res.Violations)
	}
	if h := res.Violations[0]; h.Cause != CauseForeignRenewal {
		t.Fatalf("headline %s (%s), want %s: %+v", h.Cause, h.Reason, CauseForeignRenewal, res.Violations)
	}
	if _, found := findViolation(res.Violations, CausePrematureExpiry, []string{"c1/t1", "c2/t1"}); !found {
		t.Fatalf("the pause's premature expiry is not listed: %+v", res.Violations)
	}
}
