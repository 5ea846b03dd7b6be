package checker

import (
	"testing"

	"github.com/locksim/locksim/sim/trace"
)

func TestLiveness(t *testing.T) {
	for _, c := range []struct {
		name  string
		trace func() *trace.Trace
		want  string
	}{
		{"renewal after release", func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "10")
			b.op("c1/t1", rel, "k", ok, 2, 2.2).cmd(2.1, "redis", "c1/t1", "(integer) 0", trace.KeyOverwritten, "HINCRBY", "k", "c1", "-1")
			for _, at := range []float64{5, 15, 25, 35} {
				b.cmd(at, "redis", "c1/watchdog", "(integer) 1", "", "PEXPIRE", "k", "10000")
			}
			b.op("c2/t1", acq, "k", "fail", 39, 39.1).setnxBusy(39.05, "redis", "c2/t1", "k", "10")
			return b.trace()
		}, CauseRenewalAfterRelease},
		{"renewal of an acquire its caller gave up on", func() *trace.Trace {
			// Redisson #7272: the interrupted caller's unlock ran first;
			// its acquire landed after it, and the acquire's callback
			// armed the watchdog.
			b := &tb{}
			b.op("c1/t1", acq, "k", "error: java.lang.InterruptedException", 0, 0.01).setnx(0.3, "redis", "c1/t1", "k", "10")
			b.op("c1/t1", rel, "k", "error: java.lang.InterruptedException", 0.02, 0.03)
			for _, at := range []float64{10, 20, 30, 40} {
				b.cmd(at, "redis", "c1/redisson-renewal", "(integer) 1", "", "PEXPIRE", "k", "10000")
			}
			b.op("c2/t1", acq, "k", "fail", 39, 39.1).setnxBusy(39.05, "redis", "c2/t1", "k", "10")
			return b.trace()
		}, CauseRenewalAfterRelease},
		{"an acquire its caller gave up on, expiring", func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", "error: java.lang.InterruptedException", 0, 0.01).setnx(0.3, "redis", "c1/t1", "k", "10")
			b.op("c2/t1", acq, "k", "fail", 9, 9.1).setnxBusy(9.05, "redis", "c2/t1", "k", "10")
			b.expire(10.3, "redis", "k")
			b.op("c2/t1", acq, "k", ok, 25, 25.1).setnx(25.05, "redis", "c2/t1", "k", "10")
			b.op("c2/t1", rel, "k", ok, 26, 26.1).del(26.05, "redis", "c2/t1", "k", true)
			return b.trace()
		}, ""},
		{"lost wake-up", func() *trace.Trace {
			b := &tb{}
			b.section("c1/t1", "redis", "k", 0, 2)
			b.op("c2/t1", acq, "k", ok, 1, 50).setnx(49.9, "redis", "c2/t1", "k", "10")
			b.op("c2/t1", rel, "k", ok, 51, 51.1).del(51.05, "redis", "c2/t1", "k", true)
			return b.trace()
		}, CauseLostWakeup},
		{"a waiter whose process crashed", func() *trace.Trace {
			b := &tb{}
			b.section("c1/t1", "redis", "k", 0, 2)
			b.op("c2/t1", acq, "k", "", 1, -1)
			b.add(1.5, trace.Crash("c2"))
			b.section("c3/t1", "redis", "k", 60, 61)
			return b.trace()
		}, ""},
		{"a waiter woken in time", func() *trace.Trace {
			b := &tb{}
			b.section("c1/t1", "redis", "k", 0, 2)
			b.op("c2/t1", acq, "k", ok, 1, 3).setnx(2.9, "redis", "c2/t1", "k", "10")
			b.op("c2/t1", rel, "k", ok, 51, 51.1).del(51.05, "redis", "c2/t1", "k", true)
			return b.trace()
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := c.trace()
			res := Check(tr, Options{LeaseMs: 10000, Liveness: true})
			if c.want == "" {
				if res.Verdict != VerdictOK {
					t.Fatalf("verdict %s: %+v", res.Verdict, res.Violations)
				}
				return
			}
			if len(res.Violations) != 1 || res.Violations[0].Property != PropLiveness || res.Violations[0].Cause != c.want {
				t.Fatalf("want one %s liveness violation: %+v", c.want, res.Violations)
			}
			t.Log(res.Violations[0].Explanation)
			if off := Check(tr, Options{LeaseMs: 10000}); off.Verdict != VerdictOK {
				t.Fatalf("liveness off: verdict %s: %+v", off.Verdict, off.Violations)
			}
		})
	}
}
