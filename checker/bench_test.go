package checker

import (
	"fmt"
	"testing"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// bigTrace builds a legal history of n operations from clients clients
// over keys keys: per key, critical sections one after the other (acquire,
// insert, release), each with a refused acquire by a waiting client, and
// the Redis and database events behind them. Keys run concurrently.
func bigTrace(n, clients, keys int) *trace.Trace {
	b := &tb{}
	const opsPerSection = 4
	sections := n / opsPerSection
	for s := range sections {
		k := s % keys
		round := s / keys
		key := fmt.Sprintf("lock-%d", k)
		c := fmt.Sprintf("c%d/t1", (s*7+k)%clients+1)
		w := fmt.Sprintf("c%d/t1", (s*7+k+1)%clients+1)
		from := float64(round)*0.05 + float64(k)*0.001
		name := fmt.Sprintf("name-%d", s)
		b.op(c, acq, key, ok, from, from+0.002).setnx(from+0.001, "redis", c, key, "10")
		b.op(w, acq, key, model.ResFail, from+0.010, from+0.012).setnxBusy(from+0.011, "redis", w, key, "10")
		b.op(c, model.OpInsert, name, model.ResInserted, from+0.003, from+0.030)
		b.add(from+0.020, trace.Service("db", c, name, []string{"INSERT", name}, "OK"))
		b.op(c, rel, key, ok, from+0.040, from+0.042).del(from+0.041, "redis", c, key, true)
	}
	return b.trace()
}

func TestBigTraceIsOK(t *testing.T) {
	tr := bigTrace(100_000, 50, 10)
	if len(tr.Ops) != 100_000 {
		t.Fatalf("%d ops", len(tr.Ops))
	}
	res := Check(tr, Options{LeaseMs: 10000})
	if res.Verdict != VerdictOK {
		t.Fatalf("verdict %s: %d violations, first %+v", res.Verdict, len(res.Violations), res.Violations[0])
	}
}

// BenchmarkCheck checks a 100,000-operation history from 50 clients over
// 10 keys. cpu-ns/op is the process's CPU time per check (all cores):
// on a loaded machine it is steadier than ns/op.
func BenchmarkCheck(b *testing.B) {
	tr := bigTrace(100_000, 50, 10)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		if res := Check(tr, Options{LeaseMs: 10000}); res.Verdict != VerdictOK {
			b.Fatalf("verdict %s", res.Verdict)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}
