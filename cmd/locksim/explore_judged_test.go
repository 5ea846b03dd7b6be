package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/locksim/locksim/traces/explore"
)

// exploreJSON runs explore with args and --json and returns its exit
// status and summary.
func exploreJSON(t *testing.T, args ...string) (int, *explore.Summary) {
	t.Helper()
	code, out, errs := runCLI(append([]string{"explore", "--json"}, args...)...)
	var s explore.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("explore %v: exit %d, %v\n%s%s", args, code, err, out, errs)
	}
	return code, &s
}

// An explore whose every run an event budget stopped judged none: it
// claims no rate, names the budget (as run does), not the checker, and
// exits 3 as run does for one such run.
func TestExploreWithNoRunJudgedClaimsNoRate(t *testing.T) {
	args := []string{"explore", "--protocol", "setnx-del", "--runs", "5", "--max-events", "10"}
	code, out, _ := runCLI(args...)
	if code != exitUnknown {
		t.Errorf("exit %d, want %d (inconclusive)", code, exitUnknown)
	}
	if strings.Contains(out, "rate <") || !strings.Contains(out, "none of 5 runs judged") ||
		!strings.Contains(out, "5 stopped by the event budget (raise it with --max-events)") ||
		strings.Contains(out, "the checker could not decide") {
		t.Errorf("the summary claims a rate or misnames why no run was judged:\n%s", out)
	}
	rcode, rout, _ := runCLI("run", "--protocol", "setnx-del", "--max-events", "10")
	if rcode != code || !strings.Contains(rout, "events") || !strings.Contains(rout, "--max-events") {
		t.Errorf("run exits %d (explore %d) and says\n%s", rcode, code, rout)
	}
}

// The rate and its interval are over the judged runs only: the runs not
// judged are those `locksim run` calls inconclusive (exit 3), seed by
// seed, and the summary says how many there were and why.
func TestExploreRatesAreOverJudgedRuns(t *testing.T) {
	const runs = 20
	code, s := exploreJSON(t, "--protocol", "setnx-del", "--faults", "gc-pause", "--runs", fmt.Sprint(runs), "--max-events", "300")
	inconclusive := 0
	for i := range runs {
		sc := s.Scenario
		sc.Seed = s.SeedStart + uint64(i)
		replay := strings.Fields(explore.ReplayCommand(sc, ""))[1:]
		if c, _, _ := runCLI(replay...); c == exitUnknown {
			inconclusive++
		}
	}
	if inconclusive == 0 || inconclusive == runs || s.UnsafeRuns == 0 {
		t.Fatalf("want a mix of judged, unsafe and inconclusive runs: %d inconclusive, %d unsafe of %d", inconclusive, s.UnsafeRuns, runs)
	}
	v := s.Verdict
	judged := runs - inconclusive - s.Errors
	why := 0
	for _, w := range s.UnknownWhy {
		why += w.Runs
	}
	if s.Unknown != inconclusive || v.Unknown != inconclusive || why != inconclusive || v.Runs != judged {
		t.Errorf("run finds %d of %d inconclusive; explore counts %d not judged (%d with a reason), its verdict %d judged and %d not",
			inconclusive, runs, s.Unknown, why, v.Runs, v.Unknown)
	}
	if want := float64(s.UnsafeRuns) / float64(judged); v.Rate != want || v.Low > want || v.High < want {
		t.Errorf("rate %v in [%v, %v], want %d/%d judged", v.Rate, v.Low, v.High, s.UnsafeRuns, judged)
	}
	for _, want := range []string{
		fmt.Sprintf("unsafe: %d of %d judged runs", s.UnsafeRuns, judged),
		fmt.Sprintf("%d of %d runs not judged: %d stopped by the event budget", inconclusive, runs, inconclusive),
	} {
		if !strings.Contains(v.Text, want) {
			t.Errorf("verdict %q lacks %q", v.Text, want)
		}
	}
	if code != exitViolation {
		t.Errorf("exit %d, want %d: a run violated", code, exitViolation)
	}
}

// With no violation and some runs not judged, explore is inconclusive
// and exits 3, as matrix does for such a cell; merging its shards says
// and returns the same.
func TestExploreSomeRunsNotJudgedIsInconclusive(t *testing.T) {
	scenario := []string{"--protocol", "setnx-lua-del", "--max-events", "400"}
	code, s := exploreJSON(t, append([]string{"--runs", "10"}, scenario...)...)
	if s.Violating != 0 || s.Unknown == 0 || s.Unknown == s.Runs {
		t.Fatalf("want no violation and some runs not judged: %d violating, %d not judged of %d", s.Violating, s.Unknown, s.Runs)
	}
	if code != exitUnknown || s.Verdict.Verdict != explore.VerdictUnknown ||
		!strings.HasPrefix(s.Verdict.Text, fmt.Sprintf("inconclusive: not found in %d judged run", s.Runs-s.Unknown)) {
		t.Errorf("exit %d, verdict %s: %s", code, s.Verdict.Verdict, s.Verdict.Text)
	}
	dir := t.TempDir()
	var outs []string
	for k := 1; k <= 2; k++ {
		out := filepath.Join(dir, fmt.Sprint(k))
		c, _, errs := runCLI(append([]string{"explore", "--runs", "5", "--shard", fmt.Sprintf("%d/2", k), "--out", out}, scenario...)...)
		if c != exitUnknown && c != exitOK {
			t.Fatalf("shard %d: exit %d\n%s", k, c, errs)
		}
		outs = append(outs, out)
	}
	mcode, mout, errs := runCLI(append([]string{"merge", "--json"}, outs...)...)
	var m explore.Summary
	if err := json.Unmarshal([]byte(mout), &m); err != nil {
		t.Fatalf("merge: %v\n%s%s", err, mout, errs)
	}
	if mcode != code || m.Verdict.Text != s.Verdict.Text || fmt.Sprint(m.UnknownWhy) != fmt.Sprint(s.UnknownWhy) {
		t.Errorf("merge exits %d and says %q %v;\nexplore exits %d and says %q %v", mcode, m.Verdict.Text, m.UnknownWhy,
			code, s.Verdict.Text, s.UnknownWhy)
	}
}

// explore's help lists every exit status it returns.
func TestExploreHelpListsItsExitStatuses(t *testing.T) {
	_, out, _ := runCLI("explore", "--help")
	_, statuses, ok := strings.Cut(strings.Join(strings.Fields(out), " "), "Exit status: ")
	for _, code := range []int{exitOK, exitViolation, exitUsage, exitUnknown, exitInternal} {
		if want := fmt.Sprintf("%d ", code); !ok || !strings.HasPrefix(statuses, want) && !strings.Contains(statuses, ", "+want) {
			t.Errorf("explore --help does not list exit status %d:\n%s", code, statuses)
		}
	}
}

// Each breakdown of explore's runs adds up to its total, each run in one
// bucket, in the text, the JSON and the HTML report alike: here 49 runs
// of setnx-lua-del under delay report a violation, 3 of them two holders
// at once and the rest harm to the data alone.
func TestExploreBreakdownsAddUp(t *testing.T) {
	args := []string{"--protocol", "setnx-lua-del", "--faults", "delay", "--runs", "200"}
	_, s := exploreJSON(t, args...)
	if s.Violating == 0 || s.LockViolated+s.DataLost != s.Violating {
		t.Errorf("JSON: %d violating runs = %d where the lock failed + %d where only the store lost data?",
			s.Violating, s.LockViolated, s.DataLost)
	}
	mutex := 0
	for _, c := range s.Causes {
		if c.Property == "mutual-exclusion" {
			mutex = max(mutex, c.Runs)
		}
	}
	if mutex == 0 || mutex == s.Violating {
		t.Fatalf("want violating runs with and without two holders: %d of %d", mutex, s.Violating)
	}
	html := filepath.Join(t.TempDir(), "report.html")
	_, out, errs := runCLI(append([]string{"explore", "--html", html}, args...)...)
	for _, want := range []string{
		fmt.Sprintf("%d with a violation reported, %d inconclusive (not judged), %s, %d with none of these",
			s.Violating, s.Unknown, explore.Plural(s.Errors, "error"), s.Runs-s.Violating-s.Unknown-s.Errors),
		fmt.Sprintf("of the %d with a violation: %d where the lock failed, %d where only the data store lost a write",
			s.Violating, s.LockViolated, s.DataLost),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s%s", want, out, errs)
		}
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	card := func(what string) int {
		m := regexp.MustCompile(`<div class="num">(\d+)</div><div class="what">` + what).FindSubmatch(page)
		if m == nil {
			t.Fatalf("the report has no %q card", what)
		}
		n, _ := strconv.Atoi(string(m[1]))
		return n
	}
	if v, l, d := card("violating"), card("the lock itself failed"), card("only the store lost data"); v != s.Violating || l+d != v {
		t.Errorf("HTML: %d violating runs = %d where the lock failed + %d where only the store lost data?", v, l, d)
	}
}
