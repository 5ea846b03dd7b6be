package traces

import (
	"strings"
	"testing"
)

// legacyPath is a trace written before events carried fault ids (the
// pause-no-fencing reference as committed then): format 1 still.
const legacyPath = "testdata/legacy/pause-no-fencing-before-fault-ids.json"

// A format 1 file (its hash its trace's alone) still reads and rechecks,
// and its scenario runs (run --scenario), with the fault ids events carry
// now; replay refuses it before running anything: its scenario is not
// bound by its hash.
func TestFormatOneTraceReadsButDoesNotReplay(t *testing.T) {
	f, err := Read(legacyPath)
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != 1 {
		t.Fatalf("format %d", f.Format)
	}
	for _, e := range f.Trace.Events {
		if e.Fault != 0 {
			t.Fatalf("the legacy fixture has a fault id: %+v", e)
		}
	}
	if _, err := Recheck(f); err != nil {
		t.Fatalf("recheck: %v", err)
	}
	if _, err := Verify(f); err == nil || !strings.Contains(err.Error(), "trace format 1") {
		t.Fatalf("verify of a format 1 file: %v", err)
	}
	o, err := Execute(f.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	if !Replays(f, o.File) {
		t.Fatal("the scenario of the format 1 file no longer gives its events")
	}
	cited := false
	for _, v := range o.File.Report.Violations {
		cited = cited || len(v.Faults) > 0
	}
	if !cited || o.File.Report.Verdict != f.Report.Verdict {
		t.Fatalf("run verdict %s (recorded %s), cites a fault: %v", o.File.Report.Verdict, f.Report.Verdict, cited)
	}
	// A format 1 file whose scenario no longer gives its events does not replay.
	f.Scenario.Faults[0].DurMs--
	if o, err := Execute(f.Scenario); err != nil || Replays(f, o.File) {
		t.Fatalf("a changed scenario replays the format 1 file (%v)", err)
	}
}
