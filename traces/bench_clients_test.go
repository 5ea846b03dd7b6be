package traces

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/locksim/locksim/protocols"
)

// BenchmarkRunManyClients is `locksim run --protocol redisson --clients N`
// at a fraction of the 1,000 clients: every unlock wakes every
// waiting process, so events grow as clients squared. It reports the
// events per run and the live heap per event of the run's outcome.
func BenchmarkRunManyClients(b *testing.B) {
	for _, n := range []int{100, 300} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			sc := protocols.Scenario{Seed: 1, Protocol: "redisson", Clients: n}
			var events int
			var perEvent float64
			for b.Loop() {
				o, err := Execute(sc)
				if err != nil {
					b.Fatal(err)
				}
				events = len(o.File.Trace.Events)
				perEvent = liveBytesPerEvent(o, events)
			}
			b.ReportMetric(float64(events), "events/op")
			b.ReportMetric(perEvent, "live-B/event")
		})
	}
}

// liveBytesPerEvent is the heap still live while o is held, per event.
func liveBytesPerEvent(o *Outcome, events int) float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	runtime.KeepAlive(o)
	return float64(m.HeapAlloc) / float64(events)
}
