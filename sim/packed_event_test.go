package sim

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// A long run's events come back from the recorder exactly as recorded,
// whether they stayed in the first block or were packed, even if time
// went back between two events.
func TestRecorderReturnsPackedEventsAsRecorded(t *testing.T) {
	w := New(Config{})
	var want []trace.Event
	for i := range 3*eventBlock + 17 {
		w.now = time.Duration(i*7919%1000) * time.Millisecond
		e := trace.Command("redis", "c"+strconv.Itoa(i%5)+"/t1", "k"+strconv.Itoa(i%3),
			[]string{"SET", "k", strconv.Itoa(i)}, strconv.Itoa(i%4), []string{"", trace.KeyCreated, trace.KeyDeleted}[i%3])
		switch i % 4 {
		case 1:
			e = trace.Pause("c1", "gc-pause "+strconv.Itoa(i), time.Duration(i)).WithFault(i)
		case 2:
			e = trace.Drop("c2", "") // every string but the kind and party empty
		}
		w.rec.event(e)
		e.T = int64(w.now)
		want = append(want, e)
		if i == eventBlock-1 || i == eventBlock || i == 3*eventBlock+16 {
			if got := w.rec.events(); !reflect.DeepEqual(got, want) {
				t.Fatalf("after %d events: got a different trace", i+1)
			}
		}
	}
}
