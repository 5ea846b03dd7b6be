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
