package checker

import (
	"testing"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// fencedPause is the reference timeline "pause with fencing": c1's lease
// runs out during a pause, c2 acquires and writes with token 34, c1
// resumes and writes with its older token 33. reply is what the storage
// answers c1.
func fencedPause(reply string) *trace.Trace {
	b := &tb{}
	b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "10")
	b.pause(1, "c1", 20).expire(10.1, "redis", "k")
	b.op("c2/t1", acq, "k", ok, 10.2, 10.3).setnx(10.25, "redis", "c2/t1", "k", "10")
	b.opv("c2/t1", model.OpWrite, "file", "34", ok, 10.4, 10.6)
	b.add(10.5, trace.Service("storage", "c2/t1", "file", []string{"WRITE", "file", "34"}, ok))
	b.op("c2/t1", rel, "k", ok, 11, 11.1).del(11.05, "redis", "c2/t1", "k", true)
	b.opv("c1/t1", model.OpWrite, "file", "33", reply, 21, 21.2)
	b.add(21.1, trace.Service("storage", "c1/t1", "file", []string{"WRITE", "file", "33"}, reply))
	b.op("c1/t1", rel, "k", model.ResNotOwner, 21.3, 21.4).del(21.35, "redis", "c1/t1", "k", false)
	return b.trace()
}

func TestFencedPauseOverlapWithoutDamage(t *testing.T) {
	res := Check(fencedPause(model.ResRejected), Options{LeaseMs: 10000})
	if res.Verdict != VerdictViolation || len(res.Violations) != 1 {
		t.Fatalf("verdict %s, violations %+v", res.Verdict, res.Violations)
	}
	if v := res.Violations[0]; v.Property != PropMutex || v.Cause != CausePrematureExpiry || v.Reason != ReasonPaused {
		t.Fatalf("violation %+v", v)
	}
	if d := res.Damage; d.Total() != 0 || d.StaleWritesRejected != 1 || d.StaleWritesAccepted != 0 {
		t.Fatalf("damage %+v, want none (one stale write rejected)", d)
	}
	if checkedResult(res, "fenced-register") != VerdictOK {
		t.Fatalf("checked %+v", res.Checked)
	}
}

func TestUnfencedStaleWrite(t *testing.T) {
	res := Check(fencedPause(ok), Options{LeaseMs: 10000})
	v, found := findViolation(res.Violations, CausePrematureExpiry, []string{"c2/t1", "c1/t1"})
	if !found || v.Property != PropDamage {
		t.Fatalf("no resource violation: %+v", res.Violations)
	}
	if d := res.Damage; d.StaleWritesAccepted != 1 || d.StaleWritesRejected != 0 {
		t.Fatalf("damage %+v, want one stale write accepted", d)
	}
}

func TestLockSetLostElement(t *testing.T) {
	b := &tb{}
	b.op("c1/t1", acq, "lock", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "lock", "10")
	b.opv("c1/t1", model.OpAdd, "set", "a", ok, 1, 22.6).cmd(1, "redis", "c1/t1", `""`, "", "GET", "set")
	b.pause(2, "c1", 20).expire(10.1, "redis", "lock")
	b.op("c2/t1", acq, "lock", ok, 10.2, 10.3).setnx(10.25, "redis", "c2/t1", "lock", "10")
	b.opv("c2/t1", model.OpAdd, "set", "b", ok, 10.4, 10.6).cmd(10.45, "redis", "c2/t1", `""`, "", "GET", "set")
	b.cmd(10.5, "redis", "c2/t1", "OK", trace.KeyCreated, "SET", "set", "b")
	b.op("c2/t1", rel, "lock", ok, 11, 11.1).del(11.05, "redis", "c2/t1", "lock", true)
	b.cmd(22.5, "redis", "c1/t1", "OK", "", "SET", "set", "a")
	b.op("c1/t1", rel, "lock", model.ResNotOwner, 23, 23.1).del(23.05, "redis", "c1/t1", "lock", false)
	b.op("c3/t1", model.OpRead, "set", "a", 30, 30.1)
	res := Check(b.trace(), Options{LeaseMs: 10000})
	if checkedResult(res, "lock-set") != VerdictViolation {
		t.Fatalf("checked %+v", res.Checked)
	}
	v, found := findViolation(res.Violations, CausePrematureExpiry, []string{"c2/t1", "c1/t1"})
	if !found || v.Property != PropDamage || v.Key != "set" {
		t.Fatalf("no lost-element violation: %+v", res.Violations)
	}
	if d := res.Damage; d.LostElements != 1 || d.StaleWritesAccepted != 1 {
		t.Fatalf("damage %+v, want one lost element and one stale write", d)
	}
}

// TestLockSetDelayedWrite: the shape of setnx-del on lock-set under a
// delay (seed 2): c3's SET of the set is delayed past its timeout, c1
// then adds a under the lock, and c3's SET lands later, after its caller
// gave up, writing back the set it had read: the add is lost.
func TestLockSetDelayedWrite(t *testing.T) {
	b := &tb{}
	b.op("c3/t1", acq, "lock", ok, 0, 0.2).setnx(0.1, "redis", "c3/t1", "lock", "60")
	b.opv("c3/t1", model.OpAdd, "set", "c", model.ResError+": command timed out", 1, 4.1).cmd(1.1, "redis", "c3/t1", `""`, "", "GET", "set")
	b.op("c3/t1", rel, "lock", ok, 4.2, 4.3).del(4.25, "redis", "c3/t1", "lock", true)
	b.op("c1/t1", acq, "lock", ok, 5, 5.1).setnx(5.05, "redis", "c1/t1", "lock", "60")
	b.opv("c1/t1", model.OpAdd, "set", "a", ok, 5.2, 5.5).cmd(5.3, "redis", "c1/t1", `""`, "", "GET", "set")
	b.cmd(5.4, "redis", "c1/t1", "OK", trace.KeyCreated, "SET", "set", "a")
	b.op("c1/t1", rel, "lock", ok, 5.6, 5.7).del(5.65, "redis", "c1/t1", "lock", true)
	b.cmd(20, "redis", "c3/t1", "OK", "", "SET", "set", "c")
	b.add(20, trace.Late("redis", "c3/t1", "SET attempt 1 arrived after its caller gave up"))
	b.op("c2/t1", model.OpRead, "set", "c", 30, 30.1)
	res := Check(b.trace(), Options{LeaseMs: 60000})
	if checkedResult(res, "lock-set") != VerdictViolation {
		t.Fatalf("checked %+v", res.Checked)
	}
	if _, found := findViolation(res.Violations, CauseDelayedWrite, []string{"c1/t1"}); !found {
		t.Fatalf("the late SET does not explain the lost element: %+v", res.Violations)
	}
}

// TestLockSetReadOnDeposedMaster: the shape of redisson-latest on
// lock-set under a split brain (seed 62): c1 adds a on the promoted
// replica; c2, which has not learned of the promotion, makes the final
// read on the deposed master, which never had a.
func TestLockSetReadOnDeposedMaster(t *testing.T) {
	b := &tb{}
	b.add(0.5, trace.Promote("redis-2", "redis-1", "offset 1 of 2"))
	b.section("c1/t1", "redis-2", "lock", 1, 1.3)
	b.opv("c1/t1", model.OpAdd, "set", "a", ok, 1.1, 1.25).cmd(1.15, "redis-2", "c1/t1", `""`, "", "GET", "set")
	b.cmd(1.2, "redis-2", "c1/t1", "OK", trace.KeyCreated, "SET", "set", "a")
	b.op("c2/t1", model.OpRead, "set", "", 2, 2.1).cmd(2.05, "redis-1", "c2/t1", `""`, "", "GET", "set")
	res := Check(b.trace(), Options{LeaseMs: 10000})
	if _, found := findViolation(res.Violations, CauseLostAfterFailover, []string{"c1/t1"}); !found {
		t.Fatalf("the read on the deposed master does not explain the lost element: %+v", res.Violations)
	}
}

// TestFencedWritesOnTwoMasters: under a split brain each master keeps its
// own fence token, so a lower token accepted after a higher one is the
// split, not a fence that failed (fenced on lock-set, seed 3).
func TestFencedWritesOnTwoMasters(t *testing.T) {
	b := &tb{}
	b.add(0.5, trace.Promote("redis-2", "redis-1", "offset 1 of 2"))
	b.opv("c1/t1", model.OpWrite, "file", "16", ok, 1, 1.2).cmd(1.1, "redis-1", "c1/t1", "(integer) 1", "", "EVAL", "fence", "2", "file", "file:fence", "16")
	b.opv("c3/t1", model.OpWrite, "file", "2", ok, 1.3, 1.5).cmd(1.4, "redis-2", "c3/t1", "(integer) 1", "", "EVAL", "fence", "2", "file", "file:fence", "2")
	res := Check(b.trace(), Options{LeaseMs: 10000})
	if _, found := findViolation(res.Violations, CauseLostAfterFailover, []string{"c1/t1", "c3/t1"}); !found {
		t.Fatalf("the split brain does not explain the stale accept: %+v", res.Violations)
	}
}

func TestRetriedInsertRunsTwice(t *testing.T) {
	b := &tb{}
	b.section("c1/t1", "redis", "lock", 0, 10)
	b.op("c1/t1", model.OpInsert, "p", model.ResInserted, 1, 5.2)
	b.add(1.1, trace.Service("db", "c1/t1", "p", []string{"INSERT", "p"}, "OK"))
	b.add(4.1, trace.Retry("c1", "c1/t1", "INSERT to db, attempt 2"))
	b.add(5.1, trace.Service("db", "c1/t1", "p", []string{"INSERT", "p"}, "OK"))
	res := Check(b.trace(), Options{LeaseMs: 10000})
	if _, found := findViolation(res.Violations, CauseRetriedCommand, []string{"c1/t1"}); !found {
		t.Fatalf("violations %+v", res.Violations)
	}
	if res.Damage.DuplicateInserts != 1 {
		t.Fatalf("damage %+v", res.Damage)
	}
}

func TestStockLostUpdate(t *testing.T) {
	b := &tb{}
	b.op("c1/t1", acq, "lock", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "lock", "10")
	b.op("c1/t1", model.OpBuy, "goods", "sold@2", 1, 21.5).cmd(1, "redis", "c1/t1", `"2"`, "", "GET", "goods")
	b.pause(2, "c1", 19).expire(10.1, "redis", "lock")
	b.op("c2/t1", acq, "lock", ok, 10.2, 10.3).setnx(10.25, "redis", "c2/t1", "lock", "10")
	b.op("c2/t1", model.OpBuy, "goods", "sold@2", 10.4, 10.6).cmd(10.45, "redis", "c2/t1", `"2"`, "", "GET", "goods")
	b.cmd(10.5, "redis", "c2/t1", "OK", "", "SET", "goods", "1")
	b.op("c2/t1", rel, "lock", ok, 11, 11.1).del(11.05, "redis", "c2/t1", "lock", true)
	b.cmd(21.4, "redis", "c1/t1", "OK", "", "SET", "goods", "1")
	b.op("c1/t1", rel, "lock", model.ResNotOwner, 22, 22.1).del(22.05, "redis", "c1/t1", "lock", false)
	res := Check(b.trace(), Options{LeaseMs: 10000, InitialStock: 2})
	if _, found := findViolation(res.Violations, CausePrematureExpiry, []string{"c1/t1", "c2/t1"}); !found {
		t.Fatalf("violations %+v", res.Violations)
	}
	if d := res.Damage; d.LostUpdates != 1 || d.StaleWritesAccepted != 1 {
		t.Fatalf("damage %+v", d)
	}
}

// lateFirstWrite is fenced/stock seed 5's shape: c1's lease runs out in a
// pause and c2 acquires (token 34) and pauses too; c1 resumes and writes
// with token 33, the highest the storage has seen; c2's later write is
// refused (rejected) or, without fencing, accepted (ok).
func lateFirstWrite(second string) *trace.Trace {
	b := &tb{}
	b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "10")
	b.pause(1, "c1", 20).expire(10.1, "redis", "k")
	b.op("c2/t1", acq, "k", ok, 10.2, 10.3).setnx(10.25, "redis", "c2/t1", "k", "10")
	b.pause(10.35, "c2", 20)
	b.opv("c1/t1", model.OpWrite, "file", "33", ok, 21, 21.2)
	b.add(21.1, trace.Service("storage", "c1/t1", "file", []string{"WRITE", "file", "33"}, ok))
	b.op("c1/t1", rel, "k", model.ResNotOwner, 21.3, 21.4).del(21.35, "redis", "c1/t1", "k", false)
	b.opv("c2/t1", model.OpWrite, "file", "34", second, 31, 31.2)
	b.add(31.1, trace.Service("storage", "c2/t1", "file", []string{"WRITE", "file", "34"}, second))
	b.op("c2/t1", rel, "k", model.ResNotOwner, 31.3, 31.4).del(31.35, "redis", "c2/t1", "k", false)
	return b.trace()
}

// Damage is judged write by write: a late write is stale only when the
// data had accepted a later holder's write before it. c1's late write
// lands during c2's hold but before c2 writes: the data has seen no newer
// token, so it is a late write that came first, not a stale one (fencing
// cannot refuse it); where fencing refused c2's every write, it harmed
// nothing.
func TestLateWriteStaleOnlyAgainstALaterWriter(t *testing.T) {
	for _, c := range []struct {
		second                           string
		accepted, rejected, first, clean int
	}{
		{model.ResRejected, 0, 1, 0, 1},
		{ok, 0, 0, 1, 0},
	} {
		d := Check(lateFirstWrite(c.second), Options{LeaseMs: 10000}).Damage
		if d.StaleWritesAccepted != c.accepted || d.StaleWritesRejected != c.rejected || d.LateWritesFirst != c.first || d.HarmlessLateWrites != c.clean {
			t.Errorf("second write %s: damage %+v, want %d stale accepted, %d rejected, %d first, %d harmless", c.second, d, c.accepted, c.rejected, c.first, c.clean)
		}
	}
}
