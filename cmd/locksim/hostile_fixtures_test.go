package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The hostile-input suite runs the real binary, built once, against a
// directory of fixtures: good and damaged traces and summaries, special
// files and outputs that already exist.

var hostile struct {
	once sync.Once
	bin  string
	dir  string
	err  error
}

// hostileSetup builds the binary and the fixtures once for all cases.
func hostileSetup(t *testing.T) (bin, dir string) {
	t.Helper()
	hostile.once.Do(func() {
		root, err := os.MkdirTemp("", "locksim-hostile")
		if err != nil {
			hostile.err = err
			return
		}
		hostile.bin = filepath.Join(root, "locksim")
		gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
		if out, err := exec.Command(gobin, "build", "-o", hostile.bin, ".").CombinedOutput(); err != nil {
			hostile.err = &buildError{string(out)}
			return
		}
		hostile.dir = filepath.Join(root, "d")
		hostile.err = makeFixtures(hostile.dir)
	})
	if hostile.err != nil {
		t.Fatal(hostile.err)
	}
	return hostile.bin, hostile.dir
}

type buildError struct{ out string }

func (e *buildError) Error() string { return "go build: " + e.out }

// makeFixtures writes every input the cases read, with the CLI itself.
func makeFixtures(d string) error {
	for _, sub := range []string{"", "empty-dir", "out"} {
		if err := os.MkdirAll(filepath.Join(d, sub), 0o755); err != nil {
			return err
		}
	}
	p := func(name string) string { return filepath.Join(d, name) }
	if code := Main([]string{"run", "--protocol", "setnx-lua-del", "--trace", p("ok.json")}, &bytes.Buffer{}, &bytes.Buffer{}); code != exitOK {
		return &buildError{"fixture ok.json"}
	}
	if code := Main([]string{"run", "--trace", p("bad.json")}, &bytes.Buffer{}, &bytes.Buffer{}); code != exitViolation {
		return &buildError{"fixture bad.json"}
	}
	for i, shard := range []string{"1/2", "2/2"} {
		out := p([]string{"sa", "sb"}[i])
		Main([]string{"explore", "--protocol", "setnx-del", "--faults", "gc-pause", "--runs", "20", "--shard", shard, "--out", out}, &bytes.Buffer{}, &bytes.Buffer{})
	}
	Main([]string{"explore", "--protocol", "setnx-del", "--faults", "gc-pause", "--runs", "20", "--clients", "2", "--shard", "2/2", "--out", p("sc")}, &bytes.Buffer{}, &bytes.Buffer{})
	Main([]string{"explore", "--protocol", "setnx-lua-del", "--runs", "3", "--out", p("sd")}, &bytes.Buffer{}, &bytes.Buffer{})
	good, err := os.ReadFile(p("bad.json"))
	if err != nil {
		return err
	}
	ok, _ := os.ReadFile(p("ok.json"))
	summary, _ := os.ReadFile(p("sa/summary.json"))
	files := damagedFiles(good, ok, summary)
	for name, b := range files {
		if err := os.MkdirAll(filepath.Dir(p(name)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p(name), b, 0o644); err != nil {
			return err
		}
	}
	if err := syscall.Mkfifo(p("fifo"), 0o644); err != nil {
		return err
	}
	if err := os.Symlink("bad.json", p("link.json")); err != nil {
		return err
	}
	if err := os.Symlink("keep.html", p("link.html")); err != nil {
		return err
	}
	return os.Symlink("nowhere/none.json", p("dangling.json"))
}

// damagedFiles derives the broken inputs from good ones.
func damagedFiles(bad, ok, summary []byte) map[string][]byte {
	lines := strings.Split(string(bad), "\n")
	ev := 0
	inTrace := false
	for i, l := range lines {
		inTrace = inTrace || strings.HasPrefix(l, ` "trace": {`)
		if inTrace && strings.Contains(l, `"events": [`) {
			ev = i + 1
			break
		}
	}
	with := func(f func(ls []string) []string) []byte {
		ls := append([]string{}, lines...)
		return []byte(strings.Join(f(ls), "\n"))
	}
	repl := func(b []byte, old, new string) []byte { return bytes.Replace(b, []byte(old), []byte(new), 1) }
	return map[string][]byte{
		"edit-event.json": with(func(ls []string) []string { ls[ev] = strings.Replace(ls[ev], `"t":0`, `"t":1`, 1); return ls }),
		"del-event.json":  with(func(ls []string) []string { return append(ls[:ev+1], ls[ev+2:]...) }),
		"dup-event.json": with(func(ls []string) []string {
			return append(ls[:ev+1], append([]string{ls[ev+1]}, ls[ev+1:]...)...)
		}),
		"padded.json":      append(append([]byte{}, bad...), bytes.Repeat([]byte("junk\n"), 1000)...),
		"extra-field.json": repl(bad, "{\n", "{\n \"extra\": 1,\n"),
		"dup-key.json":     repl(bad, "{\n", "{\n \"format\": 1,\n"),
		"report-lie.json":  repl(ok, `"verdict": "ok"`, `"verdict": "violation"`),
		"seed-edit.json":   repl(bad, `"seed":1,`, `"seed":2,`),
		"hash-edit.json":   setHash(bad, func(h string) string { return strings.Repeat("0", len(h)) }),
		"no-hash.json":     setHash(bad, func(string) string { return "" }),
		"empty.json":       {},
		"garbage.json":     []byte("{not json"),
		"null.json":        []byte("null"),
		"array.json":       []byte("[1,2]"),
		"string.json":      []byte(`"trace"`),
		"format99.json":    []byte(`{"format": 99}`),
		"format0.json":     []byte(`{"format": 0}`),
		"format-str.json":  []byte(`{"format": "1"}`),
		"no-trace.json":    []byte(`{"format": 1}`),
		"lease-huge.json":  repl(bad, `"lease_ms":60000`, `"lease_ms":9223372036854775807`),
		"dur-huge.json":    repl(bad, `"dur_ms":70000`, `"dur_ms":1000000000000000000`),
		"at-neg.json":      repl(bad, `"at_ms":1000`, `"at_ms":-5`),
		"latency.json":     repl(bad, `"latency_min_ns":200000`, `"latency_min_ns":5000000`),
		"attempts.json":    repl(bad, `"attempts":200`, `"attempts":-3`),
		"intensity.json":   repl(ok, `"clients":3,`, `"clients":3,"intensity":"NaN",`),
		"clients.json":     repl(bad, `"clients":2`, `"clients":100000`),
		"big.json":         append(repl(bad, "{\n", "{\n"+strings.Repeat(" ", 2<<20)), '\n'),
		"keep.html":        []byte("earlier output\n"),
		"dup/summary.json": summary,
		"x.json":           []byte(`{"protocol":"x"}`),
		"neg.json":         repl(summary, `"runs": 20`, `"runs": -20`),
		"counts.json":      repl(summary, `"errors": 0`, `"errors": 70`),
		"unknown-sum.json": repl(summary, "{\n", "{\n  \"bogus\": 1,\n"),
		"damage-sum.json":  repl(summary, `"runs_with_damage": `, `"runs_with_damage": 9999`),
		// A bucket of the pause plot counting more runs than the summary.
		"plot-sum.json": regexp.MustCompile(`("param": "pause_over_lease"[^\]]*?"runs": )`).ReplaceAll(summary, []byte("${1}9999")),
	}
}

// setHash replaces the file's trace_sha256 with f of it.
func setHash(b []byte, f func(string) string) []byte {
	const key = `"trace_sha256": "`
	i := bytes.Index(b, []byte(key)) + len(key)
	j := i + bytes.IndexByte(b[i:], '"')
	return append(append(append([]byte{}, b[:i]...), f(string(b[i:j]))...), b[j:]...)
}

// removeHostile removes what hostileSetup made.
func removeHostile() {
	if hostile.bin != "" {
		os.RemoveAll(filepath.Dir(hostile.bin))
	}
}

// snapshot maps each fixture path to its kind and content hash.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return nil
		}
		info, _ := os.Lstat(path)
		v := info.Mode().Type().String()
		if info.Mode().IsRegular() {
			b, _ := os.ReadFile(path)
			sum := sha256.Sum256(b)
			v += hex.EncodeToString(sum[:8])
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			v += target
		}
		m[path] = v
		return nil
	})
	return m
}

// runBin runs the binary with a deadline: a hang fails the case.
func runBin(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%v: did not finish (hung)", args)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}
