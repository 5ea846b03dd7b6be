package traces

import (
	"testing"
)

// legacyPath is a trace written before events carried fault ids (the
// pause-no-fencing reference as committed then): format 1 still.
const legacyPath = "testdata/legacy/pause-no-fencing-before-fault-ids.json"

func TestTraceBeforeFaultIDsReadsAndReplays(t *testing.T) {
	f, err := Read(legacyPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range f.Trace.Events {
		if e.Fault != 0 {
			t.Fatalf("the legacy fixture has a fault id: %+v", e)
		}
	}
	if _, err := Recheck(f); err != nil {
		t.Fatalf("recheck: %v", err)
	}
	o, err := Verify(f)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if o.File.TraceSHA256 == f.TraceSHA256 {
		t.Fatal("the replay has the legacy hash: its events carry no fault id")
	}
	cited := false
	for _, v := range o.File.Report.Violations {
		cited = cited || len(v.Faults) > 0
	}
	if !cited || o.File.Report.Verdict != f.Report.Verdict {
		t.Fatalf("replay verdict %s (recorded %s), cites a fault: %v", o.File.Report.Verdict, f.Report.Verdict, cited)
	}
	// A legacy file whose scenario no longer gives its events is refused.
	f.Scenario.Faults[0].DurMs--
	if _, err := Verify(f); err == nil {
		t.Fatal("verify accepted a legacy file whose scenario changed")
	}
}
