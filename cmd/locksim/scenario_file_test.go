package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/traces"
)

// runHash runs `locksim run args... --json` and returns the trace hash.
func runHash(t *testing.T, args ...string) string {
	t.Helper()
	code, out, stderr := runCLI(append(append([]string{"run"}, args...), "--json")...)
	var s struct {
		TraceSHA256 string `json:"trace_sha256"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || code == exitUsage || s.TraceSHA256 == "" {
		t.Fatalf("run %v: exit %d (%v): %s%s", args, code, err, out, stderr)
	}
	return s.TraceSHA256
}

// Every named scenario printed with --print-scenario, saved and run as a
// file gives the named scenario's trace, hash for hash; so does the
// trace file the named run writes, run with --scenario.
func TestPrintedScenarioFileRunsAsTheNamedScenario(t *testing.T) {
	dir := t.TempDir()
	for _, name := range traces.ReferenceNames() {
		code, out, stderr := runCLI("run", "--scenario", name, "--print-scenario")
		if code != exitOK || stderr != "" || !strings.HasPrefix(out, "{\n  \"version\": ") {
			t.Fatalf("%s: print-scenario exit %d: %s%s", name, code, out, stderr)
		}
		file := filepath.Join(dir, name+".json")
		if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		tracePath := filepath.Join(dir, name+".trace.json")
		want := runHash(t, "--scenario", name, "--trace", tracePath)
		if got := runHash(t, "--scenario", file); got != want {
			t.Errorf("%s: the printed scenario file gives trace %.16s, the named scenario %.16s", name, got, want)
		}
		if got := runHash(t, "--scenario", tracePath); got != want {
			t.Errorf("%s: the trace file's scenario gives trace %.16s, the named scenario %.16s", name, got, want)
		}
		// Printing is stable: the file prints itself back byte for byte.
		if _, again, _ := runCLI("run", "--scenario", file, "--print-scenario"); again != out {
			t.Errorf("%s: the printed file prints differently:\n%s\nvs\n%s", name, again, out)
		}
	}
}

// Flags print as a file too, and the file runs as the flags do.
func TestPrintScenarioOfFlags(t *testing.T) {
	args := []string{"--protocol", "redisson", "--faults", "gc-pause", "--seed", "4", "--clients", "4"}
	code, out, stderr := runCLI(append(append([]string{"run"}, args...), "--print-scenario")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	file := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(file, []byte(out), 0o644)
	if got, want := runHash(t, "--scenario", file), runHash(t, args...); got != want {
		t.Fatalf("file gives %.16s, flags %.16s", got, want)
	}
}

// A misspelt field or value in a scenario file exits 2 with one line that
// names it and suggests the nearest valid name.
func TestMisspeltScenarioFileExitsTwoWithASuggestion(t *testing.T) {
	_, out, _ := runCLI("run", "--scenario", "pause-no-fencing", "--print-scenario")
	dir := t.TempDir()
	for _, c := range []struct{ from, to, want string }{
		{`"clients"`, `"clinets"`, `scenario field "clinets" is unknown (did you mean "clients"?)`},
		{`"setnx-del"`, `"setnx-dell"`, `unknown protocol "setnx-dell" (did you mean "setnx-del"?)`},
		{`"gc-pause"`, `"gc-pasue"`, `unknown fault kind "gc-pasue" (did you mean "gc-pause"?)`},
		{`"topology": "single"`, `"topology": "singel"`, `unknown topology "singel" (did you mean "single"?)`},
		{`"unique-name"`, `"uniq-name"`, `unknown workload "uniq-name" (did you mean "unique-name"?)`},
	} {
		if !strings.Contains(out, c.from) {
			t.Fatalf("the printed scenario has no %s", c.from)
		}
		file := filepath.Join(dir, "bad.json")
		os.WriteFile(file, []byte(strings.Replace(out, c.from, c.to, 1)), 0o644)
		code, stdout, stderr := runCLI("run", "--scenario", file)
		if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s -> %s: exit %d, stderr %q", c.from, c.to, code, stderr)
		}
	}
	code, _, stderr := runCLI("run", "--scenario", "pause-no-fenicng")
	if code != exitUsage || !strings.Contains(stderr, `did you mean "pause-no-fencing"?`) {
		t.Errorf("misspelt scenario name: exit %d, %q", code, stderr)
	}
	code, _, stderr = runCLI("run", "--scenario", filepath.Join(dir, "missing.json"))
	if code != exitUsage || !strings.Contains(stderr, "missing.json") {
		t.Errorf("missing file: exit %d, %q", code, stderr)
	}
	code, _, stderr = runCLI("run", "--clients", "4")
	if code != exitUsage || !strings.Contains(stderr, "--clients needs --protocol") {
		t.Errorf("a scenario flag with neither --scenario nor --protocol: exit %d, %q", code, stderr)
	}
}
