package checker

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// TestUnknownOutcomes checks how the lock history treats acquires whose
// outcome the client never learned.
func TestUnknownOutcomes(t *testing.T) {
	b := &tb{}
	b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "10")
	// reached Redis, created nothing: settled as failed, left out
	b.op("c2/t1", acq, "k", "error: command timed out", 1, 4).setnxBusy(1.1, "redis", "c2/t1", "k", "10")
	b.op("c2/t1", acq, "k", model.ResFail, 4.5, 4.7).setnxBusy(4.6, "redis", "c2/t1", "k", "10")
	// never reached Redis: settled, left out
	b.op("c3/t1", acq, "k", "error: command timed out", 1, 4)
	b.op("c1/t1", rel, "k", ok, 5, 5.2).del(5.1, "redis", "c1/t1", "k", true)
	// created the key but the reply was lost: an orphan, left out
	b.op("c3/t1", acq, "k", "error: command timed out", 6, 9).setnx(6.1, "redis", "c3/t1", "k", "10")
	b.expire(16.1, "redis", "k")
	tr := b.trace()
	tt := newTruth(tr, Options{LeaseMs: 10000})
	hs := holds(tt)
	ops, st := lockHistory(tt, hs)
	if len(ops) != 2 || len(st.failed) != 2 || len(st.orphans) != 1 {
		t.Fatalf("%d ops, %+v", len(ops), st)
	}
	for _, op := range ops {
		if op.Return == math.MaxInt64 {
			t.Fatalf("operation left open at infinity: %+v", op)
		}
	}
	if res := Check(tr, Options{LeaseMs: 10000}); res.Verdict != VerdictOK {
		t.Fatalf("verdict %s: %+v", res.Verdict, res.Violations)
	}
}

// TestCrashGivesFreshIdentity checks that a crashed client's open release
// returns at infinity, its hold ends at the crash, and its restarted
// instance is a client of its own.
func TestCrashGivesFreshIdentity(t *testing.T) {
	b := &tb{}
	b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "10")
	b.op("c1/t1", model.OpInsert, "p", "", 1, -1)
	b.add(1.5, trace.Service("db", "c1/t1", "p", []string{"INSERT", "p"}, "OK"))
	b.op("c1/t1", model.OpInsert, "q", "", 1.6, -1)
	b.add(2, trace.Crash("c1")).expire(10.1, "redis", "k")
	b.add(11, trace.Restart("c1#2", "c1"))
	b.section("c1#2/t1", "redis", "k", 12, 13).section("c2/t1", "redis", "k", 10.2, 11.5)
	b.op("c2/t1", model.OpInsert, "p", model.ResExists, 10.5, 10.6)
	tr := b.trace()
	res := Check(tr, Options{LeaseMs: 10000})
	if res.Verdict != VerdictOK {
		t.Fatalf("verdict %s: %+v", res.Verdict, res.Violations)
	}
	tt := newTruth(tr, Options{})
	// The crashed insert of p reached the database: settled as inserted
	// when it did; the one of q never did: left out.
	ops := insertHistory(tt)
	if len(ops) != 2 || ops[0].Return != sec(1.5) || !ops[0].Output.(model.InsertOutput).Inserted {
		t.Fatalf("insert history %+v", ops)
	}
	lock, _ := lockHistory(tt, holds(tt))
	ids := map[int]bool{}
	crashed := false
	for _, op := range lock {
		in, _ := model.AsLockInput(op.Input)
		crashed = crashed || (in.Crash && in.Owner == "c1/t1" && op.Call == sec(2))
		ids[op.ClientId] = true
	}
	if !crashed || len(ids) < 3 {
		t.Fatalf("lock history %+v", lock)
	}
}

// TestBudgetYieldsUnknown checks that a history too hard to decide within
// the step budget gives unknown, naming the budget, with the checks that
// did finish; and that the same history gives the same report again.
func TestBudgetYieldsUnknown(t *testing.T) {
	b := &tb{}
	b.section("c0/t1", "redis", "lock", 0, 1)
	for i := 0; i < 40; i++ {
		b.op(fmt.Sprintf("c%d/t1", i+1), model.OpBuy, "goods", "", 1, -1)
	}
	b.op("cz/t1", model.OpBuy, "goods", "sold@-3", 2, 3)
	tr := b.trace()
	res := Check(tr, Options{InitialStock: 40, Budget: 50_000})
	if res.Verdict != VerdictUnknown || checkedResult(res, "stock-counter") != VerdictUnknown || checkedResult(res, "mutex") != VerdictOK {
		t.Fatalf("verdict %s, checked %+v", res.Verdict, res.Checked)
	}
	for _, c := range res.Checked {
		if c.Model == "stock-counter" && !strings.Contains(c.Unknown, "50000 search steps") {
			t.Fatalf("unknown does not name the budget: %+v", c)
		}
	}
	if again := Check(tr, Options{InitialStock: 40, Budget: 50_000}); !reflect.DeepEqual(again.Report, res.Report) {
		t.Fatalf("second check differs:\n%+v\n%+v", again.Report, res.Report)
	}
}
