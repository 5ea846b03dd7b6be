package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/traces"
)

func writeTrace(t *testing.T, dir string, args ...string) string {
	t.Helper()
	p := filepath.Join(dir, "t.json")
	if code, _, stderr := runCLI(append(args, "--trace", p)...); code != exitViolation && code != exitOK {
		t.Fatalf("run %v: exit %d: %s", args, code, stderr)
	}
	return p
}

func TestViewWritesTimeline(t *testing.T) {
	dir := t.TempDir()
	tracePath := writeTrace(t, dir, "run")
	out := filepath.Join(dir, "t.html")
	code, stdout, stderr := runCLI("view", tracePath, "-o", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "wrote "+out) {
		t.Errorf("stdout %q", stdout)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	f, err := traces.Read(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!doctype html>", `id="locksim-data"`, `id="lin-frame"`, "Linearization (porcupine)"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The explanation travels in the embedded JSON, escaped as
	// encoding/json escapes it.
	if len(f.Report.Violations) == 0 {
		t.Fatal("the default scenario found no violation")
	}
	want, _ := json.Marshal(f.Report.Violations[0].Explanation)
	if !bytes.Contains(page, append([]byte(`"explanation":`), want...)) {
		t.Errorf("page lacks the violation's explanation %s", want)
	}
	// Flags after the file, and --out, work too.
	out2 := filepath.Join(dir, "t2.html")
	if code, _, stderr := runCLI("view", "--out", out2, tracePath); code != exitOK {
		t.Fatalf("--out: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(out2); !bytes.Equal(b, page) {
		t.Error("the same trace gave a different page")
	}
}

func TestRunHTMLWritesTimeline(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "run.html")
	if code, _, stderr := runCLI("run", "--html", out); code != exitViolation {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="locksim-data"`, `id="lin-frame"`, "premature-expiry"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("--html page lacks %q", want)
		}
	}
}

func TestViewBadInputExitsTwoWithOneLine(t *testing.T) {
	dir := t.TempDir()
	good := writeTrace(t, dir, "run", "--protocol", "setnx-lua-del")
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte("{not json"), 0o644)
	future := filepath.Join(dir, "future.json")
	os.WriteFile(future, []byte(`{"format": 99}`), 0o644)
	// A report the trace does not check to (view draws the recorded trace
	// without running it; replay is what re-runs the scenario).
	f, err := traces.Read(good)
	if err != nil {
		t.Fatal(err)
	}
	f.Report.Verdict = "violation"
	tampered := filepath.Join(dir, "tampered.json")
	if err := traces.Write(tampered, f); err != nil {
		t.Fatal(err)
	}
	unreadable := filepath.Join(dir, "dir.json")
	os.Mkdir(unreadable, 0o755)
	out := filepath.Join(dir, "out.html")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"view"}, "want exactly one trace FILE"},
		{[]string{"view", good}, "-o OUT.html is required"},
		{[]string{"view", good, good, "-o", out}, "want exactly one trace FILE"},
		{[]string{"view", "--bogus", good, "-o", out}, "unknown flag --bogus"},
		{[]string{"view", good, "-o"}, "flag needs an argument"},
		{[]string{"view", filepath.Join(dir, "missing.json"), "-o", out}, "no such file"},
		{[]string{"view", unreadable, "-o", out}, "read trace"},
		{[]string{"view", garbage, "-o", out}, "not a locksim trace"},
		{[]string{"view", future, "-o", out}, "newer than this locksim"},
		{[]string{"view", tampered, "-o", out}, "report mismatch"},
		{[]string{"view", good, "-o", filepath.Join(garbage, "dir", "t.html")}, garbage + " is not a directory"},
		{[]string{"view", good, "-o", dir}, "write"},
	}
	for _, c := range cases {
		code, stdout, stderr := runCLI(c.args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "locksim view: ") {
			t.Errorf("%v: stderr %q, want one line", c.args, stderr)
		}
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%v: stderr %q lacks %q", c.args, stderr, c.want)
		}
		if stdout != "" {
			t.Errorf("%v: stdout %q", c.args, stdout)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed view wrote its output")
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*")); len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func TestHelpListsView(t *testing.T) {
	_, out, _ := runCLI("help")
	if !strings.Contains(out, "view") || !strings.Contains(out, "locksim view trace.json -o trace.html") {
		t.Errorf("help lacks the view command and its example:\n%s", out)
	}
}
