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

// A run's events recorded again, packed from the second on or all kept
// as they are, come back as the run recorded them: packing loses nothing,
// including the argument lists the trace shares between events.
func TestPackedRunEqualsUnpacked(t *testing.T) {
	sc := protocols.Scenario{Seed: 3, Protocol: "redisson", Clients: 40, Topology: "replicated",
		FaultKinds: []string{"gc-pause", "partition", "clock-jump", "reply-loss", "delay", "client-crash", "failover"},
		Intensity:  3}
	for i := range sc.Clients {
		sc.ClientNames = append(sc.ClientNames, strings.Repeat("a_rather_long_client_name.", 6)+strconv.Itoa(i))
	}
	_, tr, err := protocols.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	packed, _ := sim.Rerecord(tr.Events, 1)
	plain, _ := sim.Rerecord(tr.Events, len(tr.Events))
	for _, got := range [][]trace.Event{packed, plain} {
		if len(got) != len(tr.Events) {
			t.Fatalf("%d events back of %d", len(got), len(tr.Events))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], tr.Events[i]) {
				t.Fatalf("event %d recorded again %+v\nin the run %+v", i, got[i], tr.Events[i])
			}
			if len(got[i].Args) > 0 && &got[i].Args[0] != &tr.Events[i].Args[0] {
				t.Fatalf("event %d: its argument list was copied", i)
			}
		}
	}
	checkPackedCoverage(t, packed[1:])
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
		if out, packed = sim.Rerecord(tr.Events, 256); len(out) != len(tr.Events) {
			b.Fatalf("%d events back of %d", len(out), len(tr.Events))
		}
	}
	n := float64(b.N * len(tr.Events))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/event")
	b.ReportMetric(float64(packed)/float64(len(tr.Events)), "packed-B/event")
}
