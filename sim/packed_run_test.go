package sim_test

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// A run whose events are packed from the second on, by the recorder or
// on another core and unpacked as a large run's, records the same trace
// as the run with every event kept as it is.
func TestPackedRunEqualsUnpacked(t *testing.T) {
	sc := protocols.Scenario{Seed: 3, Protocol: "redisson", Clients: 40, Topology: "replicated",
		FaultKinds: []string{"gc-pause", "partition", "clock-jump", "reply-loss", "delay", "client-crash", "failover"},
		Intensity:  3}
	for i := range sc.Clients {
		sc.ClientNames = append(sc.ClientNames, strings.Repeat("a_rather_long_client_name.", 6)+strconv.Itoa(i))
	}
	packed := runWithEventBlock(t, sc, 1)
	plain := runWithEventBlock(t, sc, len(packed.Events))
	restore := sim.SetLarge(1)
	aside := runWithEventBlock(t, sc, 1)
	restore()
	if !reflect.DeepEqual(aside, packed) {
		t.Fatalf("packed aside: %d events, %s; in turn: %d events, %s", len(aside.Events), aside.Hash(), len(packed.Events), packed.Hash())
	}
	if !reflect.DeepEqual(packed, plain) {
		for i := range min(len(packed.Events), len(plain.Events)) {
			if !reflect.DeepEqual(packed.Events[i], plain.Events[i]) {
				t.Fatalf("event %d packed %+v\nunpacked %+v", i, packed.Events[i], plain.Events[i])
			}
		}
		t.Fatalf("packed run: %d events, unpacked: %d, or other fields differ", len(packed.Events), len(plain.Events))
	}
	checkPackedCoverage(t, packed.Events[1:])
}

func runWithEventBlock(t *testing.T, sc protocols.Scenario, n int) *trace.Trace {
	t.Helper()
	defer sim.SetEventBlock(n)()
	_, tr, err := protocols.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// checkPackedCoverage fails unless evs (the packed ones) set every field
// of an event, with numbers that take more than one byte to pack: else
// the comparison would not show a field lost.
func checkPackedCoverage(t *testing.T, evs []trace.Event) {
	t.Helper()
	strs, args := map[string]bool{}, map[*string]bool{}
	var longest, maxDelta, maxDur, minDur, maxFault int64
	set := map[string]int{}
	for i, e := range evs {
		for f, v := range map[string]string{"kind": e.Kind, "party": e.Party, "client": e.Client, "key": e.Key,
			"reply": e.Reply, "change": e.Change, "detail": e.Detail} {
			if v != "" {
				set[f]++
				strs[v] = true
				longest = max(longest, int64(len(v)))
			}
		}
		if len(e.Args) > 0 {
			set["args"]++
			args[&e.Args[0]] = true
		}
		if i > 0 {
			maxDelta = max(maxDelta, e.T-evs[i-1].T)
		}
		maxDur, minDur, maxFault = max(maxDur, e.DurNs), min(minDur, e.DurNs), max(maxFault, int64(e.Fault))
	}
	for _, f := range []string{"kind", "party", "client", "key", "reply", "change", "detail", "args"} {
		if set[f] == 0 {
			t.Errorf("no packed event has a %s", f)
		}
	}
	if len(strs) < 1<<7 || len(args) < 1<<7 || longest < 150 {
		t.Errorf("%d distinct strings, %d distinct argument lists, longest string %d: want at least 128, 128, 150",
			len(strs), len(args), longest)
	}
	if maxDelta < 1<<14 || maxDur < 1<<14 || minDur >= 0 || maxFault == 0 {
		t.Errorf("largest time step %d, durations %d to %d, largest fault %d: want steps and durations past 2^14, a negative duration, a fault",
			maxDelta, minDur, maxDur, maxFault)
	}
}

// BenchmarkRecorder is the recorder's cost over a 100-client run's
// events: packing each as the run records it, and unpacking the trace at
// its end. packed-B/event is what an event takes until then.
func BenchmarkRecorder(b *testing.B) {
	_, tr, err := protocols.Run(protocols.Scenario{Seed: 1, Protocol: "redisson", Clients: 100})
	if err != nil {
		b.Fatal(err)
	}
	packed := 0
	b.ReportAllocs()
	for b.Loop() {
		var out []trace.Event
		if out, packed = sim.Rerecord(tr.Events); len(out) != len(tr.Events) {
			b.Fatalf("%d events back of %d", len(out), len(tr.Events))
		}
	}
	n := float64(b.N * len(tr.Events))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/event")
	b.ReportMetric(float64(packed)/float64(len(tr.Events)), "packed-B/event")
}
