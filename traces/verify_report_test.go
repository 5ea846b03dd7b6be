package traces

import (
	"strconv"
	"strings"
	"testing"
)

// TestReportMismatchSaysWhatDiffers: a file whose report was edited is
// refused with the first field that differs and both values, so the
// message never reads "violation with 2, the checker finds violation
// with 2".
func TestReportMismatchSaysWhatDiffers(t *testing.T) {
	ref, err := LookupReference(DefaultReference)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Execute(ref.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	v := o.File.Report.Violations[0]
	for _, c := range []struct {
		edit func(f *File)
		want string
	}{
		{func(f *File) { f.Report.Verdict = "ok" }, `report mismatch: verdict: the file says "ok", the checker finds "violation" in its events`},
		{func(f *File) { f.Report.Violations[0].Cause = "meteor" },
			`report mismatch: violation 1, cause: the file says "meteor", the checker finds "` + v.Cause + `" in its events`},
		{func(f *File) { f.Report.Violations = f.Report.Violations[:1] },
			"report mismatch: violations: the file has 1, the checker finds " + strconv.Itoa(len(o.File.Report.Violations)) + " in its events"},
		{func(f *File) { f.Report.Damage.DuplicateInserts += 5 }, "report mismatch: damage, duplicate_inserts: the file says "},
	} {
		g := *o.File
		g.Report.Violations = append(g.Report.Violations[:0:0], o.File.Report.Violations...)
		c.edit(&g)
		_, err := Verify(&g)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err %v, want %q", err, c.want)
		}
	}
	if len(o.File.Report.Violations) < 2 {
		t.Fatal("the reference run has one violation: the count case tests nothing")
	}
}
