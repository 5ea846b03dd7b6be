package sim

import (
	"bufio"
	"bytes"
	"strconv"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
)

// BenchmarkCommand compares one plain command served by a bare miniredis
// (Dispatch on an in-process peer) with the same command through the
// sim's node (clock advance, key-change detection, trace event, expiry
// tick). The goal: sim/bare <= 2.
func BenchmarkCommand(b *testing.B) {
	cmds := [][]string{{"SET", "k", "v", "PX", "30000"}, {"GET", "k"}, {"HINCRBY", "h", "f", "1"}}
	b.Run("bare-miniredis", func(b *testing.B) {
		m := miniredis.NewMiniRedis()
		c, _ := m.Dial()
		c.Close()
		var out bytes.Buffer
		p := server.NewPeer(bufio.NewWriter(&out))
		srv := m.Server()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			out.Reset()
			srv.Dispatch(p, cmds[i%len(cmds)])
			p.Flush()
			if _, err := ParseReply(out.Bytes()); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("sim-node", func(b *testing.B) {
		b.ReportAllocs()
		s := NewStandalone(1)
		i := 0
		for b.Loop() {
			if i%4096 == 0 {
				s = NewStandalone(1) // keep the trace bounded, as a run is
			}
			s.Do(0, cmds[i%len(cmds)]...)
			i++
		}
	})
}

// BenchmarkScheduler is one sleep-and-wake of a simulated thread: the
// cost of handing control between the scheduler and a thread.
func BenchmarkScheduler(b *testing.B) {
	w := New(Config{Seed: 1})
	n := b.N
	w.AddProcess("c1").Go("main", func(t *Thread) {
		for range n {
			t.Sleep(1)
		}
	})
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := w.Run(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(n), "wakeups")
}

var _ = strconv.Itoa
