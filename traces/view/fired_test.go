package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

// TestTimelineShowsAnchoredFaultWhenItFired: the page's fault texts (its
// header and every tooltip that names a fault) give an anchored pause at
// the time its pause event happened, not at its schedule's at_ms 0.
func TestTimelineShowsAnchoredFaultWhenItFired(t *testing.T) {
	flt, err := trace.ParseFault("gc-pause:c2@0+8000~c2/acquire/return/ok#1+2500")
	if err != nil {
		t.Fatal(err)
	}
	o, err := traces.Execute(protocols.Scenario{Protocol: "setnx-del", Seed: 1, LeaseMs: 5000, Faults: []trace.Fault{flt}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteOutcomeView(&buf, o); err != nil {
		t.Fatal(err)
	}
	var vm viewModel
	if err := json.Unmarshal([]byte(extract(t, buf.String())), &vm); err != nil {
		t.Fatal(err)
	}
	var paused int64 = -1
	for _, e := range vm.Events {
		if e.Kind == trace.EvPause && e.Fault == 1 {
			paused = e.T
		}
	}
	if paused < 1e9 {
		t.Fatalf("pause event at %d ns", paused)
	}
	want := fmt.Sprintf("gc-pause c2 at t=%.1f s for 8000 ms, 2500 ms after c2 acquired", float64(paused)/1e9)
	if texts := vm.Header.FaultTexts; len(texts) != 1 || texts[0] != want {
		t.Fatalf("fault texts %q, want %q", texts, want)
	}
	if !strings.Contains(buf.String(), "fault_texts") {
		t.Fatal("the page does not carry the fault texts")
	}
	// On the timeline, the fault's shades span the pause, from the time
	// it fired: none starts at its anchor, 2.5 s earlier.
	shaded := false
	for _, sh := range vm.Shades {
		if vm.Events[sh.Ev].Fault != 1 {
			continue
		}
		shaded = true
		if sh.Start != paused || sh.End != paused+8000*1e6 {
			t.Errorf("fault #1 shaded from %d to %d ns (%q), want the pause, %d to %d", sh.Start, sh.End, sh.Label, paused, paused+8000*1e6)
		}
	}
	if !shaded {
		t.Error("fault #1 has no shade")
	}
}
