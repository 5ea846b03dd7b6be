package checker

import (
	"fmt"
	"testing"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// opsPerRound is what one round of concurrentTrace records on a key.
const opsPerRound = 8

// concurrentTrace builds a history of about n operations from clients
// clients over keys keys, with the overlap a busy service has: in each
// 50 ms round of a key, the holder's acquire overlaps the previous
// holder's release, three rivals' acquires overlap it and fail, a fourth
// rival's acquire times out after reaching Redis (unknown outcome), the
// holder inserts a row and renews its 30 ms lease while the rivals wait,
// and every tenth release times out. With violate, the holder of one
// round of key 0 is paused for 70 ms: its key expires, the next round's
// holder acquires, and both believe they hold the lock.
func concurrentTrace(n, clients, keys int, violate bool) *trace.Trace {
	b := &tb{}
	rounds := n / opsPerRound
	for r := range rounds {
		k, round := r%keys, r/keys
		key := fmt.Sprintf("lock-%d", k)
		cl := func(i int) string { return fmt.Sprintf("c%d/t1", (r*7+k*3+i)%clients+1) }
		base := float64(round)*0.050 + float64(k)*0.0001
		paused := violate && k == 0 && round == rounds/keys/2
		holder := cl(0)
		b.op(holder, acq, key, ok, base, base+0.003).setnxPX(base+0.002, "redis", holder, key, "30")
		for i := 1; i <= 3; i++ {
			c := cl(i)
			b.op(c, acq, key, model.ResFail, base+0.0005+0.0002*float64(i), base+0.006+0.001*float64(i))
			b.setnxBusyPX(base+0.004+0.0003*float64(i), "redis", c, key, "30")
		}
		lost := cl(4)
		b.op(lost, acq, key, "error: command timed out", base+0.001, base+0.020).setnxBusyPX(base+0.005, "redis", lost, key, "30")
		name := fmt.Sprintf("row-%d", r)
		b.op(holder, model.OpInsert, name, model.ResInserted, base+0.010, base+0.025)
		b.add(base+0.015, trace.Service("db", holder, name, []string{"INSERT", name}, "OK"))
		if paused {
			b.pause(base+0.005, model.ProcessOf(holder), 0.070)
			b.expire(base+0.032, "redis", key)
			b.op(holder, rel, key, model.ResNotOwner, base+0.076, base+0.078)
			b.cmd(base+0.077, "redis", holder, "(integer) 0", "", "EVAL", "sha1:unlock", "1", key, holder)
			continue
		}
		b.op(holder, model.OpRenew, key, ok, base+0.020, base+0.022)
		b.cmd(base+0.021, "redis", holder, "(integer) 1", "", "PEXPIRE", key, "30")
		result := ok
		if round%10 == 9 {
			result = "error: command timed out"
		}
		b.op(holder, rel, key, result, base+0.049, base+0.0515).del(base+0.050, "redis", holder, key, true)
	}
	return b.trace()
}

func (b *tb) setnxPX(at float64, node, client, key, ms string) *tb {
	return b.cmd(at, node, client, "OK", trace.KeyCreated, "SET", key, client, "PX", ms, "NX")
}

func (b *tb) setnxBusyPX(at float64, node, client, key, ms string) *tb {
	return b.cmd(at, node, client, "(nil)", "", "SET", key, client, "PX", ms, "NX")
}

// TestConcurrentTraceVerdicts checks the benchmark's histories: the
// legal one passes, the violating one is caught and explained, and both
// hold the overlap they claim.
func TestConcurrentTraceVerdicts(t *testing.T) {
	tr := concurrentTrace(20_000, 50, 10, false)
	if !hasOverlap(tr) {
		t.Fatal("no two operations overlap")
	}
	if res := Check(tr, Options{LeaseMs: 30}); res.Verdict != VerdictOK {
		t.Fatalf("legal history: verdict %s, %+v", res.Verdict, res.Violations)
	}
	res := Check(concurrentTrace(20_000, 50, 10, true), Options{LeaseMs: 30})
	if res.Verdict != VerdictViolation || res.Violations[0].Cause != CausePrematureExpiry || res.Violations[0].Reason != ReasonPaused {
		t.Fatalf("violating history: verdict %s, %+v", res.Verdict, res.Violations)
	}
	if checkedResult(res, "mutex") != VerdictViolation {
		t.Fatalf("the mutex search did not find the overlap: %+v", res.Checked)
	}
}

// hasOverlap reports two operations of one key whose windows overlap.
func hasOverlap(tr *trace.Trace) bool {
	last := map[string]int64{}
	for _, op := range tr.Ops {
		if r, ok := last[op.Key]; ok && op.Call < r {
			return true
		}
		last[op.Key] = max(last[op.Key], op.Return)
	}
	return false
}

// BenchmarkCheckConcurrent checks 100,000 operations from 50 clients
// over 10 keys with real overlap (see concurrentTrace), legal and
// violating, and legal with the liveness checks. cpu-ns/op is the
// process's CPU time per check (all cores).
func BenchmarkCheckConcurrent(b *testing.B) {
	for _, c := range []struct {
		name     string
		violate  bool
		liveness bool
		want     string
	}{{"legal", false, false, VerdictOK}, {"violating", true, false, VerdictViolation}, {"legal-liveness", false, true, VerdictOK}} {
		b.Run(c.name, func(b *testing.B) {
			tr := concurrentTrace(100_000, 50, 10, c.violate)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuTime()
			for b.Loop() {
				if res := Check(tr, Options{LeaseMs: 30, Liveness: c.liveness}); res.Verdict != c.want {
					b.Fatalf("verdict %s", res.Verdict)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
