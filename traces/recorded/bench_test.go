package recorded

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/locksim/locksim/checker"
)

// generateHistory writes a JSONL history of about n events: 100 lock
// keys, each taken in turn by its 10 processes (acquire with a lease,
// one write with a token, release), all keys at once on one clock.
func generateHistory(n int) []byte {
	const keys, procs = 100, 10
	var buf bytes.Buffer
	buf.Grow(n * 130)
	t0 := int64(1_733_390_000_000_000_000)
	sections := n / 6
	for s := 0; s < sections; s++ {
		k, round := s%keys, s/keys
		p := fmt.Sprintf("k%d-p%d", k, round%procs)
		key := fmt.Sprintf("lock:%d", k)
		t := t0 + int64(round)*10_000_000 + int64(k)*1000
		line := func(typ, f, key string, dt int64, extra string) {
			fmt.Fprintf(&buf, `{"process":%q,"type":%q,"f":%q,"key":%q%s,"time":%d}`+"\n", p, typ, f, key, extra, t+dt)
		}
		line("invoke", "acquire", key, 0, `,"value":null`)
		line("ok", "acquire", key, 1_000_000, fmt.Sprintf(`,"value":"tok-%d","lease_ms":5000`, round))
		line("invoke", "write", fmt.Sprintf("data:%d", k), 2_000_000, fmt.Sprintf(`,"value":"v%d","token":%d`, round, round))
		line("ok", "write", fmt.Sprintf("data:%d", k), 3_000_000, fmt.Sprintf(`,"value":"v%d","token":%d`, round, round))
		line("invoke", "release", key, 4_000_000, "")
		line("ok", "release", key, 5_000_000, "")
	}
	return buf.Bytes()
}

// BenchmarkCheckRecordedHistory reads and checks a generated history of
// 1,000,000 events (the lock and fenced-register histories partitioned
// per key by porcupine).
func BenchmarkCheckRecordedHistory(b *testing.B) {
	data := generateHistory(1_000_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		h, err := ReadJSONL(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		o, err := Check(h, "generated")
		if err != nil {
			b.Fatal(err)
		}
		if v := o.File.Report.Verdict; v != checker.VerdictOK {
			b.Fatalf("verdict %s: %+v", v, o.File.Report.Violations[:min(2, len(o.File.Report.Violations))])
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
		b.ReportMetric(float64(len(h.Events)), "events/op")
	}
	b.ReportMetric(float64(peak)/(1<<20), "heap-MB")
}
