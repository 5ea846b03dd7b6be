package explore

import (
	"github.com/locksim/locksim/checker"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestEarlierListsOnlyExploresFiles: what explore --out writes (summary,
// each cause's trace and timeline) is listed; the user's files, the lock,
// directories and look-alikes are not.
func TestEarlierListsOnlyExploresFiles(t *testing.T) {
	dir := t.TempDir()
	if got, err := Earlier(filepath.Join(dir, "missing")); err != nil || got != nil {
		t.Fatalf("missing dir: %v %v", got, err)
	}
	own := []string{SummaryFile, filepath.Base(causeFile(dir, "mutual-exclusion", "premature-expiry", ".json")),
		filepath.Base(TimelineOf(causeFile(dir, checker.PropDamage, "lost-update", ".json"))), "liveness-orphan-key.json"}
	others := []string{LockFile, "report.html", "notes.txt", "mutual-exclusion-.json", "damage-x.txt", "my-summary.json"}
	for _, n := range append(slices.Clone(own), others...) {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	os.Mkdir(filepath.Join(dir, "mutual-exclusion-dir.json"), 0o755)
	got, err := Earlier(dir)
	slices.Sort(own)
	if err != nil || !slices.Equal(got, own) {
		t.Fatalf("Earlier = %v, %v; want %v", got, err, own)
	}
}
