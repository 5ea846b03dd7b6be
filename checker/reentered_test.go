package checker

import (
	"testing"

	"github.com/locksim/locksim/sim/trace"
)

// TestReacquireInsideAnUnknownRelease: a release of unknown outcome that
// did not happen (an interrupted isHeldByCurrentThread() skipped the
// unlock) followed by the same thread's acquire and release is a
// reentrant hold, and the watchdog's renewals after it renew a held key:
// no mutual-exclusion violation.
func TestReacquireInsideAnUnknownRelease(t *testing.T) {
	b := &tb{}
	b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "30")
	b.op("c1/t1", rel, "k", "error: isHeldByCurrentThread: java.lang.InterruptedException", 1, 1.01)
	b.op("c1/t1", acq, "k", ok, 2, 2.2).cmd(2.1, "redis", "c1/t1", "(nil)", trace.KeyOverwritten, "HINCRBY", "k", "c1:t1", "1")
	b.op("c1/t1", rel, "k", ok, 3, 3.2).cmd(3.1, "redis", "c1/t1", "(integer) 0", trace.KeyOverwritten, "HINCRBY", "k", "c1:t1", "-1")
	for _, at := range []float64{10, 20, 30} {
		b.cmd(at, "redis", "c1/redisson-watchdog", "(integer) 1", "", "PEXPIRE", "k", "30000")
	}
	b.op("c1/redisson-watchdog", "renew", "k", ok, 20, 20.1)
	res := Check(b.trace(), Options{LeaseMs: 30000})
	if res.Verdict != VerdictOK {
		t.Fatalf("verdict %s: %+v", res.Verdict, res.Violations)
	}
}
