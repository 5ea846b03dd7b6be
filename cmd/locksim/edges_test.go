package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/explore"
)

// TestZeroDurationsAreRefused: every scenario flag in milliseconds refuses
// 0 (the scenario's "unset", which used to mean the default without a
// word) and negative values, naming the flag, in run and explore.
func TestZeroDurationsAreRefused(t *testing.T) {
	n := 0
	for _, name := range explore.ScenarioFlagNames() {
		if !strings.HasSuffix(name, "-ms") {
			continue
		}
		n++
		for _, v := range []string{"0", "-5"} {
			for _, cmd := range []string{"run", "explore"} {
				code, _, stderr := runCLI(cmd, "--protocol", "setnx-del", "--runs", "1", "--"+name, v)
				if cmd == "run" {
					code, _, stderr = runCLI(cmd, "--protocol", "setnx-del", "--"+name, v)
				}
				if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--"+name+` "`+v+`"`) {
					t.Errorf("%s --%s %s: exit %d, %q", cmd, name, v, code, stderr)
				}
			}
		}
	}
	if n < 6 {
		t.Fatalf("only %d millisecond flags", n)
	}
	if code, _, stderr := runCLI("run", "--protocol", "setnx-del", "--lease-ms", "1"); code == exitUsage {
		t.Fatalf("--lease-ms 1 refused: %s", stderr)
	}
}

// TestOutputsMakeTheirDirectories: --trace, --html, -o and --out make the
// directories their path needs; a path that cannot be made is one line
// that names the user's path and what is in its way, never a temporary
// file.
func TestOutputsMakeTheirDirectories(t *testing.T) {
	dir := t.TempDir()
	at := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	code, _, stderr := runCLI("run", "--trace", at("a/b/c.json"), "--html", at("h/i/t.html"))
	if code != exitViolation {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}
	f, err := traces.Read(at("a/b/c.json"))
	if err != nil || f.Report.Verdict != "violation" {
		t.Fatalf("the trace in a/b: %v", err)
	}
	if st, err := os.Stat(at("h/i/t.html")); err != nil || st.Size() == 0 {
		t.Fatalf("the timeline in h/i: %v", err)
	}
	if code, _, stderr := runCLI("view", at("a/b/c.json"), "-o", at("v/w/x.html")); code != exitOK {
		t.Fatalf("view: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI("explore", "--protocol", "setnx-del", "--faults", "gc-pause", "--runs", "4",
		"--out", at("e/f"), "--html", at("r/s/report.html")); code != exitViolation {
		t.Fatalf("explore: exit %d, %s", code, stderr)
	}
	for _, p := range []string{"v/w/x.html", "e/f/summary.json", "r/s/report.html"} {
		if _, err := os.Stat(at(p)); err != nil {
			t.Errorf("%s not written: %v", p, err)
		}
	}
	os.WriteFile(at("file"), []byte("x"), 0o644)
	for _, args := range [][]string{
		{"run", "--trace", at("file/sub/c.json")},
		{"run", "--html", at("file/c.html")},
		{"view", at("a/b/c.json"), "-o", at("file/x.html")},
		{"explore", "--protocol", "setnx-del", "--runs", "1", "--out", at("file/out")},
		{"explore", "--protocol", "setnx-del", "--runs", "1", "--html", at("file/r.html")},
	} {
		code, _, stderr := runCLI(args...)
		if code != exitUsage || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, ".tmp") ||
			!strings.Contains(stderr, at("file")+" is not a directory") {
			t.Errorf("%v: exit %d, %q", args[:2], code, stderr)
		}
	}
}

// TestUnwritableOutputIsRefusedBeforeWork: an output in a directory where
// no file can be made (procfs refuses even root) is refused before the
// command runs, naming the command and the path: no other output of the
// run is written first, and no verdict is lost to a late error.
func TestUnwritableOutputIsRefusedBeforeWork(t *testing.T) {
	if st, err := os.Stat("/proc/self"); err != nil || !st.IsDir() {
		t.Skip("no procfs here")
	}
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.json")
	bad := "/proc/locksim-cannot-write-here.html"
	for _, args := range [][]string{
		{"run", "--trace", tr, "--html", bad},
		{"explore", "--protocol", "setnx-del", "--runs", "1", "--out", filepath.Join(dir, "out"), "--html", bad},
	} {
		code, out, stderr := runCLI(args...)
		if code != exitUsage || out != "" || strings.Count(stderr, "\n") != 1 ||
			!strings.HasPrefix(stderr, "locksim "+args[0]+": write "+bad+": ") {
			t.Errorf("%v: exit %d, %q %q", args, code, out, stderr)
		}
	}
	if _, err := os.Stat(tr); err == nil {
		t.Error("run wrote its trace before refusing the timeline's path")
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "summary.json")); err == nil {
		t.Error("explore ran before refusing the report's path")
	}
	if code, _, stderr := runCLI("run", "--trace", tr); code != exitViolation {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}
	// replay's errors name replay.
	code, _, stderr := runCLI("replay", tr, "--html", bad)
	if code != exitUsage || !strings.HasPrefix(stderr, "locksim replay: write "+bad) {
		t.Errorf("replay --html %s: exit %d, %q", bad, code, stderr)
	}
}

// TestUsedOutIsRefused: an explore into an --out directory that holds an
// earlier explore's output exits 2 and leaves every file there byte for
// byte; with --force it removes that output (explore's own files only)
// before writing its own.
func TestUsedOutIsRefused(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	first := []string{"explore", "--protocol", "setnx-del", "--faults", "gc-pause", "--runs", "3", "--out", out}
	if code, _, stderr := runCLI(first...); code != exitViolation {
		t.Fatalf("first explore: exit %d, %s", code, stderr)
	}
	mine := filepath.Join(out, "notes.txt")
	os.WriteFile(mine, []byte("the user's own file\n"), 0o644)
	stale := filepath.Join(out, "liveness-orphan-key.json") // a cause this explore will not find
	os.WriteFile(stale, []byte("{}\n"), 0o644)
	before := snapshot(t, out)
	if len(before) < 5 {
		t.Fatalf("the first explore left %d files", len(before))
	}
	// Nothing is made in the directory, even for a moment: its own
	// modification time stays.
	mtime := func() time.Time {
		st, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		return st.ModTime()
	}
	dirTime := mtime()
	for _, extra := range [][]string{nil, {"--html", filepath.Join(out, "report.html")}, {"--runs", "5"}} {
		args := append(append([]string{}, first...), extra...)
		code, _, stderr := runCLI(args...)
		if !mtime().Equal(dirTime) {
			t.Errorf("%v: the directory was modified", extra)
		}
		if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--out "+out+" holds an earlier explore's output") ||
			!strings.Contains(stderr, "--force") {
			t.Errorf("%v: exit %d, %q", extra, code, stderr)
		}
		after := snapshot(t, out)
		if len(after) != len(before) {
			t.Errorf("%v: %d files before, %d after", extra, len(before), len(after))
		}
		for p, v := range before {
			if after[p] != v {
				t.Errorf("%v: changed %s", extra, p)
			}
		}
	}
	code, _, stderr := runCLI(append(first, "--force", "--runs", "2")...)
	if code != exitViolation {
		t.Fatalf("--force: exit %d, %s", code, stderr)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "the user's own file\n" {
		t.Errorf("--force touched the user's file: %q %v", b, err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("--force left an earlier explore's trace behind")
	}
	s, err := explore.ReadSummary(filepath.Join(out, explore.SummaryFile))
	if err != nil || s.Runs != 2 {
		t.Fatalf("summary after --force: %v", err)
	}
	if code, _, stderr := runCLI("explore", "--protocol", "setnx-del", "--runs", "1", "--force"); code != exitUsage || !strings.Contains(stderr, "--force needs --out") {
		t.Errorf("--force without --out: exit %d, %q", code, stderr)
	}
}

// TestAnchoredFaultPrintsItsFiredTime: run and shrink print an anchored
// fault at the time its pause event happened in the trace, with its
// anchor, not at its schedule's at_ms 0.
func TestAnchoredFaultPrintsItsFiredTime(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.json")
	code, out, stderr := runCLI("run", "--protocol", "setnx-del", "--clients", "2", "--ops", "1", "--trace", tr,
		"--fault", "gc-pause:c2@0+70000~c2/acquire/return/ok#1+1500")
	if code != exitViolation {
		t.Fatalf("run: exit %d, %s%s", code, out, stderr)
	}
	line := func(path string) string {
		f, err := traces.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range f.Trace.Events {
			if e.Kind == "pause" && e.Fault == 1 {
				flt := f.Scenario.Faults[0]
				after := fmt.Sprintf("%d ms after", flt.Anchor.AfterMs)
				if flt.Anchor.AfterMs == 0 {
					after = "as" // (shrinking moves the pause to the anchor itself)
				}
				return fmt.Sprintf("fault #1: gc-pause c2 at t=%.1f s for %d ms, %s c2 acquired\n", float64(e.T)/1e9, flt.DurMs, after)
			}
		}
		t.Fatalf("%s: no pause event", path)
		return ""
	}
	if want := line(tr); !strings.Contains(out, "\n  "+want) || strings.Contains(want, "t=0.0 s") {
		t.Errorf("run output lacks %q:\n%s", want, out)
	}
	min := filepath.Join(dir, "min.json")
	code, out, stderr = runCLI("shrink", tr, "-o", min, "--budget", "60")
	if code != exitViolation {
		t.Fatalf("shrink: exit %d, %s%s", code, out, stderr)
	}
	if want := line(min); !strings.Contains(out, "\n    "+want) || strings.Contains(out, " at 0 ms") {
		t.Errorf("shrink output lacks %q:\n%s", want, out)
	}
}

// TestListFitsOneHundredColumns: every line of `locksim list` fits 100
// columns, and every word of every name and text of the JSON listing is
// still in it (wrapping loses nothing but URLs, which --json keeps).
func TestListFitsOneHundredColumns(t *testing.T) {
	code, out, _ := runCLI("list")
	if code != exitOK {
		t.Fatal(code)
	}
	for i, l := range strings.Split(out, "\n") {
		if len(l) > 100 {
			t.Errorf("line %d is %d columns: %q", i+1, len(l), l)
		}
	}
	_, js, _ := runCLI("list", "--json")
	var l listing
	if err := json.Unmarshal([]byte(js), &l); err != nil {
		t.Fatal(err)
	}
	words := strings.Fields(out)
	seen := map[string]bool{}
	for _, w := range words {
		seen[strings.Trim(w, ",():")] = true
	}
	var texts []string
	for _, items := range [][]listItem{l.Protocols, l.Workloads, l.Scenarios} {
		for _, it := range items {
			texts = append(texts, it.Name, it.Summary)
		}
	}
	for _, b := range l.Bugs {
		texts = append(texts, b.Bug, b.Library, b.Affected, b.Cause, b.Scenario)
	}
	texts = append(append(texts, l.Faults...), l.Topologies...)
	for _, text := range texts {
		for _, w := range strings.Fields(text) {
			if !seen[strings.Trim(w, ",():")] {
				t.Errorf("list lost %q (of %q)", w, text)
			}
		}
	}
}

// TestHelpListsOnlyTheExitCodesACommandReturns: each command's help ends
// with the exit statuses that command can return; view and list, which
// judge nothing, do not speak of violations.
func TestHelpListsOnlyTheExitCodesACommandReturns(t *testing.T) {
	want := map[string]string{
		"run": "01234", "replay": "01234", "check": "01234", "matrix": "01234",
		"explore": "01234", "verify": "01234", "merge": "01234",
		"shrink": "124", "view": "024", "list": "024",
	}
	code := regexp.MustCompile(`(?:^|, |\n)([0-9]) `)
	for _, c := range commands() {
		if c.run == nil {
			continue
		}
		_, help, _ := runCLI(c.name, "--help")
		_, status, ok := strings.Cut(help, "\nExit status: ")
		if !ok {
			t.Errorf("%s --help has no exit status", c.name)
			continue
		}
		got := ""
		for _, m := range code.FindAllStringSubmatch(status, -1) {
			got += m[1]
		}
		if got != want[c.name] {
			t.Errorf("%s --help lists exit statuses %q, want %q:\n%s", c.name, got, want[c.name], status)
		}
		if !strings.Contains(want[c.name], "1") && strings.Contains(status, "violat") {
			t.Errorf("%s --help speaks of violations: %s", c.name, status)
		}
	}
	// What the commands return agrees: view writes with 0, shrink with 1.
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.json")
	if code, _, _ := runCLI("run", "--trace", tr); code != exitViolation {
		t.Fatalf("run: exit %d", code)
	}
	if code, _, _ := runCLI("view", tr, "-o", filepath.Join(dir, "t.html")); code != exitOK {
		t.Errorf("view: exit %d", code)
	}
	if code, _, _ := runCLI("shrink", tr, "--budget", "20"); code != exitViolation {
		t.Errorf("shrink: exit %d", code)
	}
}

// TestHelpConcepts: `locksim help concepts` explains each term the
// output uses, once, in lines that fit a terminal; `locksim help` points
// to it.
func TestHelpConcepts(t *testing.T) {
	code, out, stderr := runCLI("help", "concepts")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	for _, term := range []string{"scenario", "seed", "trace", "verdict and evidence", "properties", "cause", "damage",
		"dangerous states", "swarm", "anchored fault", "lock keys"} {
		if strings.Count(out, "\n"+term+"\n") != 1 {
			t.Errorf("no one section %q", term)
		}
	}
	words := []string{"trava_nome_", "inconclusive", "--swarm", trace.FaultSyntax, "c1/t1"}
	for _, p := range checker.Properties() { // each by the name reports print
		words = append(words, "\n  "+p+" ", "\n  "+p+":")
	}
	for _, st := range (checker.Coverage{}).States() {
		words = append(words, "  "+st.Name+":\n")
	}
	for i := 0; i < len(words); i++ {
		word := words[i]
		if strings.HasPrefix(word, "\n  ") && strings.HasSuffix(word, " ") { // a property: "  name " or "  name:"
			if !strings.Contains(out, word) && !strings.Contains(out, words[i+1]) {
				t.Errorf("concepts do not explain the property %q", strings.TrimSpace(word))
			}
			i++
			continue
		}
		if !strings.Contains(out, word) {
			t.Errorf("concepts do not explain %q", word)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if len(l) > 80 {
			t.Errorf("line of %d columns: %q", len(l), l)
		}
	}
	if _, help, _ := runCLI("help"); !strings.Contains(help, "locksim help concepts") {
		t.Error("locksim help does not point to the concepts")
	}
}

// TestWrongKindOfFileSaysWhatItIs: a trace given to check, and an empty
// protocol file, get one line that says what the file is or lacks, not a
// parser's "truncated line" or "EOF".
func TestWrongKindOfFileSaysWhatItIs(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.json")
	if code, _, stderr := runCLI("run", "--trace", tr); code != exitViolation {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, nil, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", tr}, tr + " is a locksim trace file, not a recorded history: replay it with locksim replay " + tr},
		{[]string{"run", "--protocol-file", empty}, "empty (want a lock description as JSON"},
		{[]string{"verify", "--protocol-file", empty}, "empty (want a lock description as JSON"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, stderr, c.want)
		}
	}
}

// TestReplaySaysItMatched: replay's output says that the run matched the
// file, not only what run would print.
func TestReplaySaysItMatched(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "t.json")
	if code, _, stderr := runCLI("run", "--trace", tr); code != exitViolation {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}
	f, err := traces.Read(tr)
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI("replay", tr)
	want := fmt.Sprintf("  replayed: the same %d events and verdict as the file (trace %s)\n", f.Trace.Stats.Events, f.TraceSHA256[:16])
	if code != exitViolation || !strings.HasSuffix(out, want) {
		t.Errorf("replay: exit %d, %q%q; want it to end with %q", code, out, stderr, want)
	}
}
