package traces

import (
	"strings"
	"testing"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
)

// TestBugCorpus: the published bugs reproduce by name (their pinned
// verdict is checked with the other references by TestReferenceCorpus);
// here, each names its report and, where a release fixed it, that
// release runs the same scenario clean.
func TestBugCorpus(t *testing.T) {
	bugs := Bugs()
	if len(bugs) < 8 {
		t.Fatalf("%d published bugs in the corpus, want at least 8", len(bugs))
	}
	for _, ref := range bugs {
		t.Run(ref.Name, func(t *testing.T) {
			b := ref.Bug
			if !strings.HasPrefix(b.URL, "https://") {
				t.Fatalf("bug %s: url %q", b.ID, b.URL)
			}
			if ref.Expect.Verdict != checker.VerdictViolation && !strings.Contains(ref.Expect.Why, "liveness") {
				t.Fatalf("bug %s pins verdict %s without saying why it is not a violation", b.ID, ref.Expect.Verdict)
			}
			if b.FixedProtocol == "" {
				return
			}
			if _, err := protocols.Lookup(b.FixedProtocol); err != nil {
				t.Fatal(err)
			}
			sc := ref.Scenario
			sc.Protocol = b.FixedProtocol
			o, err := Execute(sc)
			if err != nil {
				t.Fatal(err)
			}
			if r := o.File.Report; r.Verdict != checker.VerdictOK {
				t.Fatalf("fixed release %s: verdict %s, want ok: %+v", b.FixedProtocol, r.Verdict, r.Violations)
			}
		})
	}
}

// TestBugExplanationsNameTheMechanism runs each published bug and holds
// its explanation to the corpus entry: one violation must say every
// phrase of the entry's mechanism (how the bug breaks the lock, read from
// the trace), not the timing alone.
func TestBugExplanationsNameTheMechanism(t *testing.T) {
	for _, ref := range Bugs() {
		t.Run(ref.Name, func(t *testing.T) {
			o, err := Execute(ref.Scenario)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range o.File.Report.Violations {
				all := true
				for _, m := range ref.Bug.Mechanism {
					all = all && strings.Contains(v.Explanation, m)
				}
				if all {
					return
				}
				got = append(got, v.Property+": "+v.Explanation)
			}
			t.Fatalf("%s: no explanation names the mechanism %q:\n%s", ref.Bug.ID, ref.Bug.Mechanism, strings.Join(got, "\n"))
		})
	}
}
