package traces

import (
	"bytes"
	"cmp"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/locksim/locksim/checker"
)

var update = flag.Bool("update", false, "rewrite the committed corpus traces and golden summaries")

func corpusPath(name string) string { return filepath.Join("corpus", name+".json") }

// TestReferenceCorpus replays every committed reference trace: the
// scenario must still be the named reference, the replay must be byte
// identical, and the verdict and cause must be the pinned ones.
func TestReferenceCorpus(t *testing.T) {
	for _, ref := range References() {
		t.Run(ref.Name, func(t *testing.T) {
			want := ref.Expect
			o, err := Execute(ref.Scenario)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Encode(o.File)
			if err != nil {
				t.Fatal(err)
			}
			path := corpusPath(ref.Name)
			if *update {
				if err := WriteAtomic(path, got); err != nil {
					t.Fatal(err)
				}
			}
			committed, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./traces -run ReferenceCorpus -update)", err)
			}
			if !bytes.Equal(committed, got) {
				t.Fatalf("replay of %s is not byte-identical to the committed trace (- committed, + replay):\n%s",
					path, lineDiff(string(committed), string(got), 60))
			}
			r := o.File.Report
			if r.Verdict != want.Verdict {
				t.Fatalf("verdict %s, want %s: %+v", r.Verdict, want.Verdict, r.Violations)
			}
			if want.Cause == "" {
				return
			}
			if slices.ContainsFunc(r.Violations, want.Shows) {
				return
			}
			t.Fatalf("no %s violation with cause %s (%s): %+v", cmp.Or(want.Property, checker.PropMutex), want.Cause, want.Reason, r.Violations)
		})
	}
}

func TestPauseFencedHasOverlapButNoDamage(t *testing.T) {
	f, err := Read(corpusPath("pause-fenced"))
	if err != nil {
		t.Fatal(err)
	}
	d := f.Report.Damage
	if d.DuplicateInserts != 0 || d.StaleWritesAccepted != 0 || d.StaleWritesRejected != 1 {
		t.Fatalf("damage %+v, want no duplicate and one stale write rejected", d)
	}
}
