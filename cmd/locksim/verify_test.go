package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/locksim/locksim/traces/explore"
)

func verifyJSON(t *testing.T, args ...string) explore.VerifyCell {
	t.Helper()
	code, out, errs := runCLI(append([]string{"verify", "--json", "--protocols", "setnx-lua-del", "--faults", "client-crash"}, args...)...)
	var v explore.Verification
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Cells) != 1 || code != exitOK {
		t.Fatalf("verify %v: exit %d, %v\n%s%s", args, code, err, out, errs)
	}
	return v.Cells[0]
}

// --pair-budget is the most two-fault placements of a cell, whatever its
// points, and a cell it cut claims what it tried, not "up to 2 faults":
// every single fault, n of m two-fault placements and how they were
// chosen, and the rest not tried.
func TestVerifyPairBudgetIsPerCellAndClaimed(t *testing.T) {
	const budget = 100
	single := verifyJSON(t, "--depth", "1")
	c := verifyJSON(t, "--depth", "2", "--pair-budget", fmt.Sprint(budget))
	tried := c.Pairs - c.PairsSkipped
	if c.Pairs <= budget || tried != budget || c.Runs != single.Runs+tried {
		t.Errorf("budget %d: %d of %d two-fault placements tried, %d runs with %d single placements", budget, tried, c.Pairs,
			c.Runs, single.Runs)
	}
	if strings.Contains(c.Bound, "up to 2 faults") || !strings.HasSuffix(c.Claim, "so this is not verified up to 2 faults") {
		t.Errorf("a cut cell claims up to 2 faults: bound %q, claim %q", c.Bound, c.Claim)
	}
	for _, want := range []string{
		"every single client-crash fault at every step, and ",
		fmt.Sprintf("%s of the %s two-fault placements (", explore.Thousands(tried), explore.Thousands(c.Pairs)),
		fmt.Sprintf("a budget of %d a cell", budget),
		fmt.Sprintf("not tried: the other %s two-fault placements", explore.Thousands(c.PairsSkipped)),
	} {
		if !strings.Contains(c.Claim, want) {
			t.Errorf("claim lacks %q: %s", want, c.Claim)
		}
	}
	e := c.Evidence
	if e.PairsRun != tried || e.Pairs != c.Pairs || e.PairBudget != budget {
		t.Errorf("evidence: %d of %d pairs, budget %d", e.PairsRun, e.Pairs, e.PairBudget)
	}
}

// --max-events is the budget of every run verify makes: the placement it
// found breaking the lock replays with it, and breaks it again.
func TestVerifyMaxEventsIsEveryRunsBudget(t *testing.T) {
	code, out, errs := runCLI("verify", "--json", "--protocols", "setnx-lua-del", "--faults", "gc-pause", "--max-events", "300")
	var v explore.Verification
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Cells) != 1 || code != exitViolation {
		t.Fatalf("exit %d, %v\n%s%s", code, err, out, errs)
	}
	c := v.Cells[0]
	if c.Verdict != explore.CellUnsafe || !strings.Contains(c.Replay, " --max-events 300") {
		t.Fatalf("verdict %s, replay %q", c.Verdict, c.Replay)
	}
	if rcode, rout, _ := runCLI(strings.Fields(c.Replay)[1:]...); rcode != exitViolation {
		t.Errorf("the replay exits %d:\n%s", rcode, rout)
	}
}

// A cell whose placements a budget stopped is not verified: verify says
// how many were not judged and why, and exits 3 (inconclusive), as
// matrix does for such a cell.
func TestVerifyWithPlacementsNotJudgedIsInconclusive(t *testing.T) {
	code, out, _ := runCLI("verify", "--protocols", "setnx-lua-del", "--faults", "reply-loss", "--max-events", "300")
	claim, _, _ := strings.Cut(out, "\n")
	if code != exitUnknown || strings.Contains(claim, "verified: ") ||
		!strings.Contains(claim, "stopped by the event budget (raise it with --max-events), so this is not verified") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
