package traces

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// explainedCase is a run that once gave an unexplained verdict (a sim
// that did not record what happened, or a checker that misread it), with
// the verdict it must give now and a cause it must name (none unexplained).
type explainedCase struct {
	Name     string             `json:"name"`
	Why      string             `json:"why"`
	Verdict  string             `json:"verdict"`
	Cause    string             `json:"cause"`
	Scenario protocols.Scenario `json:"scenario"`
}

func TestOnceUnexplainedRuns(t *testing.T) {
	paths, _ := filepath.Glob("testdata/explained/*.json")
	if len(paths) == 0 {
		t.Fatal("no cases")
	}
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var c explainedCase
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		o, err := Execute(c.Scenario)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		r := o.File.Report
		if r.Verdict != c.Verdict {
			t.Errorf("%s: verdict %s, want %s (%s)", c.Name, r.Verdict, c.Verdict, c.Why)
		}
		found := c.Cause == ""
		for _, v := range r.Violations {
			found = found || v.Cause == c.Cause
			if v.Cause == checker.CauseUnexplained {
				t.Errorf("%s: %s unexplained: %s", c.Name, v.Property, v.Explanation)
			}
			// A lock that lives only in each process is a case's own cause.
			if v.Cause == checker.CauseLocalLockOnly && c.Cause != v.Cause {
				t.Errorf("%s: %s local-lock-only: %s", c.Name, v.Property, v.Explanation)
			}
		}
		if !found {
			t.Errorf("%s: no violation with cause %s (%s)", c.Name, c.Cause, c.Why)
		}
	}
}

// A node clock below zero (a backward jump past the start) still records
// the expiry a later forward jump causes.
func TestExpiryRecordedBelowClockZero(t *testing.T) {
	b, err := os.ReadFile("testdata/explained/node-clock-below-zero.json")
	if err != nil {
		t.Fatal(err)
	}
	var c explainedCase
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	o, err := Execute(c.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range o.File.Trace.Events {
		if e.Kind == trace.EvExpire && e.Key == "trava_nome_person-1" && e.T == 18_673_000_000 {
			return
		}
	}
	t.Fatal("no expiry of trava_nome_person-1 at the forward jump (18.673 s)")
}

// A final read that lacks an add acknowledged before it began is illegal
// without a search: local-mutex on lock-set under every fault (seed 1)
// once spent the checker's whole budget, 70 s, on its set history.
func TestLockSetLossNeedsNoSearch(t *testing.T) {
	sc := protocols.Scenario{Protocol: "local-mutex", Workload: "lock-set", Seed: 1, FaultKinds: trace.KindNames(), Swarm: true}
	sc, err := sc.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	o, err := Execute(sc)
	if err != nil {
		t.Fatal(err)
	}
	opt := checkOptions(sc)
	opt.Budget = 1000
	for _, c := range checker.Check(o.File.Trace, opt).Report.Checked {
		if c.Model == "lock-set" {
			if c.Result != checker.VerdictViolation {
				t.Fatalf("lock-set history: %s within 1,000 search steps, want violation", c.Result)
			}
			return
		}
	}
	t.Fatal("no lock-set history checked")
}

// A lost update under a fenced lock names why fencing let it through:
// the older token's write landed before any write of the newer one, and
// reads carry no token (fenced / stock / gc-pause, swarm seed 1).
func TestFencedLostUpdateNamesTheFence(t *testing.T) {
	o, err := Execute(protocols.Scenario{Seed: 1, Protocol: "fenced", Workload: "stock", FaultKinds: []string{"gc-pause"}, Swarm: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range o.File.Report.Violations {
		if v.Property == checker.PropDamage && strings.Contains(v.Explanation, "lost update") {
			n++
			if !strings.Contains(v.Explanation, "although both writes were fenced") || !strings.Contains(v.Explanation, "the reads carry no token") {
				t.Errorf("a fenced lost update without its mechanism: %s", v.Explanation)
			}
		}
	}
	if n == 0 {
		t.Fatal("no lost update: the scenario no longer shows one")
	}
}
