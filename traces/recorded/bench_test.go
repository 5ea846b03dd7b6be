package recorded

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/locksim/locksim/checker"
)

// generated describes a generated history: keys lock keys, each taken in
// turn by its procs processes (acquire with a lease, one write with a
// token to the key's data, release), all keys at once on one clock; every
// doubleEvery-th section (0: none) a rival process of the same key is
// granted the lock while the holder still holds it, a double grant the
// lease cannot explain.
type generated struct {
	events, keys, procs, doubleEvery int
}

// bigHistory is the benchmark's and TestWriteGeneratedHistory's shape:
// 100 keys, 10 processes each, a double grant every 20,000 sections
// (about one per 120,000 events).
func bigHistory(events int) generated {
	return generated{events: events, keys: 100, procs: 10, doubleEvery: 20_000}
}

// doubles is the number of double grants write puts in.
func (g generated) doubles() int {
	if g.doubleEvery <= 0 {
		return 0
	}
	n := 0
	for s := 0; s < g.sections(); s++ {
		if g.double(s) {
			n++
		}
	}
	return n
}

func (g generated) sections() int { return g.events / 6 }

// double says section s has a rival; the rivals fall on the first
// seven keys in turn.
func (g generated) double(s int) bool {
	return g.doubleEvery > 0 && s%g.doubleEvery == (g.doubleEvery/2+(s/g.doubleEvery)%7)%g.doubleEvery
}

// write writes the history as JSON Lines, about g.events events.
func (g generated) write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	t0 := int64(1_733_390_000_000_000_000)
	var line []byte
	emit := func(p, typ, f, key string, t int64, extra string) {
		line = line[:0]
		line = append(line, `{"process":"`...)
		line = append(line, p...)
		line = append(line, `","type":"`...)
		line = append(line, typ...)
		line = append(line, `","f":"`...)
		line = append(line, f...)
		line = append(line, `","key":"`...)
		line = append(line, key...)
		line = append(line, '"')
		line = append(line, extra...)
		line = append(line, `,"time":`...)
		line = strconv.AppendInt(line, t, 10)
		line = append(line, "}\n"...)
		bw.Write(line)
	}
	for s := 0; s < g.sections(); s++ {
		k, round := s%g.keys, s/g.keys
		p := fmt.Sprintf("k%d-p%d", k, round%g.procs)
		key, data := fmt.Sprintf("lock:%d", k), fmt.Sprintf("data:%d", k)
		t := t0 + int64(round)*10_000_000 + int64(k)*1000
		tok := strconv.Itoa(round)
		emit(p, "invoke", "acquire", key, t, `,"value":null`)
		emit(p, "ok", "acquire", key, t+1_000_000, `,"value":"tok-`+tok+`","lease_ms":5000`)
		emit(p, "invoke", "write", data, t+2_000_000, `,"value":"v`+tok+`","token":`+tok)
		emit(p, "ok", "write", data, t+3_000_000, `,"value":"v`+tok+`","token":`+tok)
		if g.double(s) {
			// A rival of the same key, idle for five rounds, is granted
			// the lock 1 ms into p's hold and releases after p.
			q := fmt.Sprintf("k%d-p%d", k, (round+g.procs/2)%g.procs)
			emit(q, "invoke", "acquire", key, t+1_500_000, `,"value":null`)
			emit(q, "ok", "acquire", key, t+2_500_000, `,"value":"rival-`+tok+`","lease_ms":5000`)
			emit(q, "invoke", "release", key, t+5_500_000, "")
			emit(q, "ok", "release", key, t+6_000_000, "")
		}
		emit(p, "invoke", "release", key, t+4_000_000, "")
		emit(p, "ok", "release", key, t+5_000_000, "")
	}
	return bw.Flush()
}

// checkData reads and checks a JSON Lines history as locksim check does,
// and returns its report and the number of events read.
func checkData(r io.Reader) (*checker.Report, int, error) {
	h, err := ReadJSONL(r)
	if err != nil {
		return nil, 0, err
	}
	defer h.Close()
	o, err := Check(h, "generated")
	if err != nil {
		return nil, 0, err
	}
	return &o.File.Report, h.Events(), nil
}

// BenchmarkCheckHistory reads and checks generated histories of 100,000
// and 1,000,000 events (100 keys, 10 processes each, leases and tokened
// writes, a double grant every 120,000 events or so) from a file, as
// locksim check does, and reports events checked per second, the bytes
// allocated per event, and the peak of the live heap (sampled every
// millisecond).
func BenchmarkCheckHistory(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			g := bigHistory(n)
			path := filepath.Join(b.TempDir(), "big.jsonl")
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := g.write(f); err != nil {
				b.Fatal(err)
			}
			size, _ := f.Seek(0, io.SeekCurrent)
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
			want := g.doubles()
			b.SetBytes(size)
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			stop := sampleLiveHeap()
			events := 0
			b.ResetTimer()
			start := time.Now()
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				r, n, err := checkData(f)
				f.Close()
				if err != nil {
					b.Fatal(err)
				}
				if got := mutexViolations(r); got != want {
					b.Fatalf("%d mutual-exclusion violations, want %d (verdict %s)", got, want, r.Verdict)
				}
				events += n
			}
			elapsed := time.Since(start)
			b.StopTimer()
			peak := stop()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(events), "B/event")
			b.ReportMetric(float64(peak)/(1<<20), "peak-live-MB")
		})
	}
}

// mutexViolations counts r's mutual-exclusion violations.
func mutexViolations(r *checker.Report) int {
	n := 0
	for _, v := range r.Violations {
		if v.Property == checker.PropMutex {
			n++
		}
	}
	return n
}

// sampleLiveHeap samples the live heap (as of the last collection)
// every millisecond until the returned function is called, which
// returns the highest sample.
func sampleLiveHeap() func() uint64 {
	var (
		peak uint64
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// TestWriteGeneratedHistory writes the benchmark's history to the file
// LOCKSIM_HISTORY_OUT names, of LOCKSIM_HISTORY_EVENTS events (default
// 1,000,000), for measuring locksim check from outside:
//
//	LOCKSIM_HISTORY_OUT=$PWD/big.jsonl go test -count=1 -run TestWriteGeneratedHistory ./traces/recorded
//	/usr/bin/time -v locksim check big.jsonl
func TestWriteGeneratedHistory(t *testing.T) {
	out := os.Getenv("LOCKSIM_HISTORY_OUT")
	if out == "" {
		t.Skip("set LOCKSIM_HISTORY_OUT to the file to write (and LOCKSIM_HISTORY_EVENTS to its size)")
	}
	n := 1_000_000
	if s := os.Getenv("LOCKSIM_HISTORY_EVENTS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 6 {
			t.Fatalf("LOCKSIM_HISTORY_EVENTS=%q: want an integer of at least 6", s)
		}
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	g := bigHistory(n)
	if err := g.write(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d sections on %d keys, %d double grants", out, g.sections(), g.keys, g.doubles())
}

// TestGeneratedHistoryVerdict: the generator's double grants are each
// found, and without them the history is clean.
func TestGeneratedHistoryVerdict(t *testing.T) {
	for _, g := range []generated{
		{events: 60_000, keys: 100, procs: 10, doubleEvery: 2_000},
		{events: 60_000, keys: 100, procs: 10},
	} {
		var buf bytes.Buffer
		if err := g.write(&buf); err != nil {
			t.Fatal(err)
		}
		r, _, err := checkData(&buf)
		if err != nil {
			t.Fatal(err)
		}
		want := g.doubles()
		if got := mutexViolations(r); got != want || (want == 0) != (r.Verdict == checker.VerdictOK) {
			t.Fatalf("%+v: verdict %s, %d mutual-exclusion violations, want %d", g, r.Verdict, got, want)
		}
	}
}
