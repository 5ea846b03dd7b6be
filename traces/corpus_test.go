package traces

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/locksim/locksim/checker"
)

var update = flag.Bool("update", false, "rewrite the committed corpus traces")

// expected pins each reference timeline's verdict and the cause of the
// violation it exists to show, argued from DESIGN.md's reference list.
var expected = map[string]struct {
	verdict, cause, reason string
}{
	// The pause outlasts the lease: expiry while the holder is stopped.
	"pause-no-fencing": {checker.VerdictViolation, checker.CausePrematureExpiry, checker.ReasonPaused},
	// Fencing does not stop the overlap; it stops the damage (see the test).
	"pause-fenced": {checker.VerdictViolation, checker.CausePrematureExpiry, checker.ReasonPaused},
	// The holder was never paused; its write took longer than the lease.
	"delayed-write": {checker.VerdictViolation, checker.CausePrematureExpiry, checker.ReasonSlowWork},
	// The promoted replica never had the key.
	"failover-before-replication": {checker.VerdictViolation, "lost-after-failover", ""},
	// A second majority formed because one master's clock jumped.
	"redlock-clock-jump": {checker.VerdictViolation, "clock-jump", ""},
	// ... because one master restarted empty.
	"redlock-restart": {checker.VerdictViolation, "restart-without-persistence", ""},
	// The OK replies were read after the keys had expired.
	"pause-during-acquire": {checker.VerdictViolation, "validity-not-checked", ""},
	// redsync's validity check gives the stale lock up: safe.
	"pause-during-acquire-checked": {checker.VerdictOK, "", ""},
	// The paused client's unconditional DEL removed the next owner's key.
	"foreign-release": {checker.VerdictViolation, checker.CauseForeignRelease, ""},
	// The DEL after a stale GET removed the next owner's key.
	"non-atomic-release": {checker.VerdictViolation, checker.CauseForeignRelease, ""},
	// The daemon stalled: the lease ran out while the holder worked.
	"renew-without-owner-check": {checker.VerdictViolation, checker.CausePrematureExpiry, checker.ReasonRenewalStalled},
	// The watchdog stalled: the lease ran out while the holder worked.
	"watchdog-starvation": {checker.VerdictViolation, checker.CausePrematureExpiry, checker.ReasonRenewalStalled},
	// A lost acquire reply blocks others until the TTL passes; nobody
	// holds the lock twice, so the verdict is ok.
	"orphan-acquire": {checker.VerdictOK, "", ""},
	// The keep-alive stalled; its late SET NX extend then re-took the key.
	"late-refresh-reacquire": {checker.VerdictViolation, checker.CausePrematureExpiry, checker.ReasonRenewalStalled},
	// Redisson's unlock script checks the owner: the retry cannot delete c2's lock.
	"retried-unlock": {checker.VerdictOK, "", ""},
}

func corpusPath(name string) string { return filepath.Join("corpus", name+".json") }

// TestReferenceCorpus replays every committed reference trace: the
// scenario must still be the named reference, the replay must be byte
// identical, and the verdict and cause must be the pinned ones.
func TestReferenceCorpus(t *testing.T) {
	for _, ref := range References() {
		t.Run(ref.Name, func(t *testing.T) {
			want, ok := expected[ref.Name]
			if !ok {
				t.Fatalf("no expected verdict pinned for %s", ref.Name)
			}
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
				t.Fatalf("replay of %s is not byte-identical to the committed trace", path)
			}
			r := o.File.Report
			if r.Verdict != want.verdict {
				t.Fatalf("verdict %s, want %s: %+v", r.Verdict, want.verdict, r.Violations)
			}
			if want.cause == "" {
				return
			}
			for _, v := range r.Violations {
				if v.Property == checker.PropMutex && v.Cause == want.cause && (want.reason == "" || v.Reason == want.reason) {
					return
				}
			}
			t.Fatalf("no mutual-exclusion violation with cause %s (%s): %+v", want.cause, want.reason, r.Violations)
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
