package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestBadInputExitsTwoWithOneLine(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte("{not json"), 0o644)
	future := filepath.Join(dir, "future.json")
	os.WriteFile(future, []byte(`{"format": 99}`), 0o644)
	cases := [][]string{
		{"frobnicate"},
		{"run", "--bogus"},
		{"run", "--protocol", "nope"},
		{"run", "--protocol", "setnx-del", "--workload", "nope"},
		{"run", "--protocol", "setnx-del", "--faults", "meteor"},
		{"run", "--protocol", "setnx-del", "--clients", "0"},
		{"run", "--protocol", "setnx-del", "--clients", "x"},
		{"run", "--protocol", "setnx-del", "--seed", "-1"},
		{"run", "--scenario", "nope"},
		{"run", "--scenario", "pause-no-fencing", "--faults", "gc-pause"},
		{"run", "--seed", "3"},
		{"run", "extra"},
		{"run", "--protocol", "setnx-del", "--trace", filepath.Join(garbage, "dir", "t.json")},
		{"replay"},
		{"replay", filepath.Join(dir, "missing.json")},
		{"replay", garbage},
		{"replay", future},
		{"list", "--bogus"},
		{"explore"},
		{"explore", "--protocol", "nope"},
		{"explore", "--protocol", "setnx-del", "--runs", "0"},
		{"explore", "--protocol", "setnx-del", "--shard", "3/2"},
		{"explore", "--protocol", "setnx-del", "--shard", "x"},
		{"explore", "--protocol", "setnx-del", "--faults", "meteor"},
		{"explore", "--protocol", "setnx-del", "--out", filepath.Join(garbage, "sub")},
		{"shrink"},
		{"shrink", garbage},
		{"shrink", filepath.Join(dir, "missing.json")},
		{"merge"},
		{"merge", garbage},
		{"run", "--protocol", "setnx-del", "--topology", "mesh"},
		{"run", "--protocol", "setnx-del", "--intensity", "0"},
		{"run", "--protocol", "setnx-del", "--fault", "gc-pause:c1"},
		{"verify", "--protocols", "nope"},
		{"verify", "--faults", "meteor"},
		{"verify", "--clients", "9"},
		{"verify", "--offsets", "x"},
		{"verify", "extra"},
	}
	for _, args := range cases {
		code, _, stderr := runCLI(args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "locksim") {
			t.Errorf("%v: stderr %q, want one line", args, stderr)
		}
	}
}

func TestDefaultRunFindsViolation(t *testing.T) {
	code, out, _ := runCLI()
	if code != exitViolation {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{"VIOLATION", "premature-expiry (holder paused)", "GC pause", "replay: locksim run --scenario pause-no-fencing"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestRunJSONAndTraceReplay(t *testing.T) {
	dir := t.TempDir()
	tracePath := filepath.Join(dir, "t.json")
	htmlPath := filepath.Join(dir, "t.html")
	code, out, stderr := runCLI("run", "--protocol", "setnx-del", "--faults", "gc-pause", "--seed", "0",
		"--json", "--trace", tracePath, "--html", htmlPath)
	if code != exitViolation {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s map[string]any
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"verdict", "protocol", "workload", "seed", "violations", "trace_sha256", "stats"} {
		if _, ok := s[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	v := s["violations"].([]any)[0].(map[string]any)
	for _, k := range []string{"property", "cause", "key", "clients", "at_ms", "explanation"} {
		if _, ok := v[k]; !ok {
			t.Errorf("violation lacks %q", k)
		}
	}
	st := s["stats"].(map[string]any)
	for _, k := range []string{"sim_ms", "wall_ms", "events", "redis_commands"} {
		if _, ok := st[k]; !ok {
			t.Errorf("stats lacks %q", k)
		}
	}
	if b, err := os.ReadFile(htmlPath); err != nil || !bytes.Contains(b, []byte("<html")) {
		t.Errorf("html not written: %v", err)
	}
	code, out, stderr = runCLI("replay", tracePath, "--json")
	if code != exitViolation {
		t.Fatalf("replay exit %d: %s", code, stderr)
	}
	var r map[string]any
	json.Unmarshal([]byte(out), &r)
	if r["trace_sha256"] != s["trace_sha256"] {
		t.Fatalf("replay hash %v != %v", r["trace_sha256"], s["trace_sha256"])
	}
}

func TestReplayDetectsTamperedTrace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.json")
	if code, _, e := runCLI("run", "--protocol", "setnx-lua-del", "--trace", p); code != exitOK {
		t.Fatalf("exit %d %s", code, e)
	}
	b, _ := os.ReadFile(p)
	b = bytes.Replace(b, []byte(`"seed":1,`), []byte(`"seed":2,`), 1)
	os.WriteFile(p, b, 0o644)
	code, _, stderr := runCLI("replay", p)
	if code != exitUsage || !strings.Contains(stderr, "hash mismatch") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

func TestListJSON(t *testing.T) {
	code, out, _ := runCLI("list", "--json")
	if code != 0 {
		t.Fatal(code)
	}
	var l listing
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Protocols) < 2 || len(l.Workloads) < 2 || len(l.Faults) < 2 {
		t.Fatalf("listing %+v", l)
	}
}

func TestListShowsTheBugCorpus(t *testing.T) {
	code, out, _ := runCLI("list")
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"published bugs", "affected:", "cause:", "redisson#3712", "redisson-3712-stale-renewal-entry"} {
		if !strings.Contains(out, want) {
			t.Fatalf("list output has no %q:\n%s", want, out)
		}
	}
	_, js, _ := runCLI("list", "--json")
	var l listing
	if err := json.Unmarshal([]byte(js), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Bugs) < 8 || l.Bugs[0].URL == "" || l.Bugs[0].Scenario == "" {
		t.Fatalf("bugs %+v", l.Bugs)
	}
}

func TestExploreShrinkMergeRoundTrip(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for i, out := range []string{a, b} {
		code, stdout, stderr := runCLI("explore", "--protocol", "setnx-del", "--faults", "gc-pause", "--runs", "30",
			"--shard", []string{"1/2", "2/2"}[i], "--out", out)
		if code != exitViolation {
			t.Fatalf("explore exit %d: %s%s", code, stdout, stderr)
		}
	}
	code, stdout, _ := runCLI("merge", a, b, "--json")
	if code != exitViolation {
		t.Fatalf("merge exit %d", code)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil || m["runs"].(float64) != 60 {
		t.Fatalf("merged %v (%v)", m["runs"], err)
	}
	trace := filepath.Join(a, "mutual-exclusion-premature-expiry.json")
	min := filepath.Join(dir, "min.json")
	code, stdout, stderr := runCLI("shrink", trace, "-o", min)
	if code != exitViolation || !strings.Contains(stdout, "after:  2 clients") {
		t.Fatalf("shrink exit %d: %s%s", code, stdout, stderr)
	}
	if code, _, stderr := runCLI("replay", min); code != exitViolation {
		t.Fatalf("replay of shrunk trace: exit %d %s", code, stderr)
	}
}
