package locktest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestDocExampleRunsWhereverCopied: the example test in docs/go-api.md,
// copied as a team would into a package of its own module (another
// directory, package and file name), compiles, and its
// TestStuckLockIsNamed passes there: its assertions do not depend on
// where it lives.
func TestDocExampleRunsWhereverCopied(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "go-api.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- include: examples/goredislock/lock_test.go -->\n```go\n(.*?)```\n").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/go-api.md has no included example test")
	}
	src := string(m[1])
	if !strings.Contains(src, "\npackage goredislock_test\n") {
		t.Fatal("the example is not package goredislock_test")
	}
	src = strings.Replace(src, "\npackage goredislock_test\n", "\npackage docexample_test\n", 1)

	mod := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	// The team's module: locksim's requirements, locksim from this tree.
	reqs := regexp.MustCompile(`(?m)^module .*$`).ReplaceAllString(string(gomod), "module example.com/team")
	reqs += "\nrequire github.com/locksim/locksim v0.0.0\n\nreplace github.com/locksim/locksim => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(mod, "internal", "docexample")
	for path, body := range map[string]string{
		filepath.Join(mod, "go.mod"): reqs, filepath.Join(mod, "go.sum"): string(sum),
		filepath.Join(pkg, "mylock_test.go"): src,
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "test", "-count=1", "-run", "^TestStuckLockIsNamed$", "-v", "./internal/docexample")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestStuckLockIsNamed") {
		t.Fatalf("the example copied to package docexample_test: %v\n%s", err, out)
	}
}
