package explore

import (
	"context"
	"strings"
	"testing"

	"github.com/locksim/locksim/checker"
)

// TestMatrixDoesNotDependOnScheduling runs one small matrix with one
// worker and with four: the verdicts, seeds and causes are the same.
func TestMatrixDoesNotDependOnScheduling(t *testing.T) {
	opt := MatrixOptions{Protocols: []string{"setnx-del", "setnx-lua-del", "local-mutex"},
		Faults: []string{"none", "gc-pause"}, Runs: 8}
	opt.Workers = 1
	a, err := RunMatrix(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Workers = 4
	b, err := RunMatrix(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if a.Text() != b.Text() {
		t.Fatalf("one worker:\n%s\nfour workers:\n%s", a.Text(), b.Text())
	}
	if c, _ := a.Cell("local-mutex", "none"); c.Verdict != CellUnsafe || *c.Seed != 0 || !strings.Contains(c.Cause, checker.CauseLocalLockOnly) {
		t.Fatalf("local-mutex/none: %+v", c)
	}
}

func TestMatrixMarksFaultsOutsideTheTopology(t *testing.T) {
	m, err := RunMatrix(context.Background(), MatrixOptions{Protocols: []string{"redlock"}, Faults: []string{"failover"}, Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := m.Cell("redlock", "failover"); c.Verdict != CellNA {
		t.Fatalf("redlock under failover: %+v, want n/a (independent masters have no replicas)", c)
	}
}

func TestMatrixRejectsUnknownNames(t *testing.T) {
	for _, opt := range []MatrixOptions{
		{Protocols: []string{"nope"}},
		{Faults: []string{"meteor"}},
		{Workload: "nope"},
	} {
		if _, err := RunMatrix(context.Background(), opt); err == nil {
			t.Errorf("%+v: no error", opt)
		}
	}
}

func TestJudgeIgnoresMutualExclusionOfAFencedLockOnly(t *testing.T) {
	r := checker.Report{Violations: []checker.Violation{{Property: checker.PropMutex, Cause: checker.CausePrematureExpiry}}}
	if !Judge(r, nil, false).Unsafe {
		t.Fatal("a mutual-exclusion violation of an unfenced lock is unsafe")
	}
	if Judge(r, nil, true).Unsafe {
		t.Fatal("a fenced lock held twice is not unsafe by itself")
	}
	r.Damage.DuplicateInserts = 1
	if j := Judge(r, nil, true); !j.Unsafe || j.Cause != "damage" {
		t.Fatal("harm to the data is unsafe even with a fence")
	}
	r = checker.Report{Damage: checker.Damage{StaleWritesAccepted: 2, StaleWritesRejected: 1}}
	if Judge(r, nil, true).Unsafe {
		t.Fatal("stale writes that harmed nothing are not unsafe by themselves")
	}
}
