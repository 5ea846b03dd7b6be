package main

// The documentation's tests: docs/cli.md is generated from the help
// texts, every command shown in README.md, HACKING.md and docs/ runs,
// every output shown is what the command prints today, and no line of
// the docs names a path of the machine that produced it.
//
// Regenerate everything after a change of the CLI's output:
//
//	go test ./cmd/locksim -run TestDocs -update

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/cli.md, docs/results.md's corpus, the docs' output blocks and included files from the current code")

const regenerate = "go test ./cmd/locksim -run TestDocs -update"

// repoRoot is the repository's root, absolute: the commands' tests
// change the working directory.
var repoRoot = func() string {
	p, err := filepath.Abs("../..")
	if err != nil {
		panic(err)
	}
	return p
}()

// runDocs lists the files whose commands run: README.md, HACKING.md and
// docs/*.md except the benchmark archive (a dated record of commands as
// they were run then, on binaries that no longer exist).
func runDocs(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "HACKING.md"}
	more, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range more {
		rel, _ := filepath.Rel(repoRoot, f)
		if rel != filepath.Join("docs", "benchmarks-archive.md") {
			files = append(files, rel)
		}
	}
	sort.Strings(files)
	return files
}

func readDoc(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writeOrCompare writes want to rel under -update, and otherwise fails
// when the file differs from it.
func writeOrCompare(t *testing.T, rel, want string) {
	t.Helper()
	path := filepath.Join(repoRoot, rel)
	if *updateDocs {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (generate it: %s)", err, regenerate)
	}
	if string(got) != want {
		t.Errorf("%s differs from what the code produces now:\n%s\nregenerate it: %s", rel, firstDiff(string(got), want), regenerate)
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n  file: %q\n  code: %q", i+1, gl, wl)
		}
	}
	return "(equal)"
}

// cliReference is docs/cli.md: `locksim help` and every command's --help.
func cliReference(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# locksim command reference\n\n")
	b.WriteString("<!-- Generated from the help texts by `" + regenerate + "`; do not edit. -->\n\n")
	b.WriteString("Every command's `--help` (the same text as `locksim help CMD`), as the\n")
	b.WriteString("current code prints it. A test fails when this page and the help texts differ.\n\n")
	code, top, stderr := runCLI("help")
	if code != exitOK || stderr != "" {
		t.Fatalf("locksim help: exit %d, %q", code, stderr)
	}
	b.WriteString("## locksim help\n\n```text\n" + top + "```\n")
	for _, c := range commands() {
		if c.run == nil {
			continue
		}
		code, help, stderr := runCLI(c.name, "--help")
		if code != exitOK || stderr != "" {
			t.Fatalf("locksim %s --help: exit %d, %q", c.name, code, stderr)
		}
		fmt.Fprintf(&b, "\n## locksim %s\n\n%s.\n\n```text\n%s```\n", c.name, upperFirst(c.summary), help)
	}
	b.WriteString(filesNote)
	return b.String()
}

// filesNote is how every command treats its files, after the help texts.
const filesNote = `
## Files, for every command

A regular output file is written atomically (a temporary file, then a
rename; the temporary file is removed on Ctrl-C or SIGTERM); a symlink is
followed and its target replaced; a device or a FIFO with a reader is
written through, never replaced (` + "`-o /dev/null`" + ` works), a FIFO without one is
refused. An output that is also an input, or two outputs naming one file,
are refused. Every input file is capped at 256 MB (` + "`--max-input-mb`" + ` raises
it) and read as a stream. Every reader (replay, view, shrink, merge) checks
a trace's events against its ` + "`trace_sha256`" + `, and its report against the
checker's verdict on those events, before trusting it, and says which check
failed; ` + "`replay`" + ` and ` + "`shrink`" + ` also re-run the scenario and compare. An
` + "`--out`" + ` directory belongs to one explore at a time (a lock file,
` + "`.locksim.lock`" + `). Every replay command locksim prints carries every flag
that shapes the scenario, and a test runs each one and compares trace
hashes.
`

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// TestDocsCLIReference: docs/cli.md is the help texts, as generated.
func TestDocsCLIReference(t *testing.T) {
	writeOrCompare(t, "docs/cli.md", cliReference(t))
}

// corpusTable is the published-bug corpus as a Markdown table, from the
// same entries `locksim list` prints.
func corpusTable() string {
	var b strings.Builder
	b.WriteString("| bug | library | affected | scenario | fixed release (runs clean) | explore runs to find it | cause |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- |\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	for _, r := range traces.Bugs() {
		bug := r.Bug
		id := bug.ID
		if bug.URL != "" {
			id = "[" + id + "](" + bug.URL + ")"
		}
		fixed := "-"
		if bug.FixedProtocol != "" {
			fixed = "`" + bug.FixedProtocol + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | `%s` | %s | %d | %s |\n",
			cell(id), cell(bug.Library), cell(bug.Affected), r.Name, fixed, bug.ExploreRuns, cell(bug.Cause))
	}
	return b.String()
}

// generated sections: <!-- begin generated: NAME --> ... <!-- end generated: NAME -->
var generators = map[string]func() string{
	"corpus":    corpusTable,
	"scenarios": scenarioTable,
}

// scenarioTable lists the reference scenarios, as `locksim list` does.
func scenarioTable() string {
	var b strings.Builder
	b.WriteString("| scenario | what happens |\n| --- | --- |\n")
	for _, r := range traces.References() {
		fmt.Fprintf(&b, "| `%s` | %s |\n", r.Name, strings.ReplaceAll(r.Summary, "|", "\\|"))
	}
	return b.String()
}

// fillGenerated replaces the body of every generated section of text.
func fillGenerated(t *testing.T, rel, text string) string {
	t.Helper()
	re := regexp.MustCompile(`(?s)(<!-- begin generated: ([a-z-]+) -->\n).*?(<!-- end generated: ([a-z-]+) -->)`)
	return re.ReplaceAllStringFunc(text, func(m string) string {
		s := re.FindStringSubmatch(m)
		if s[2] != s[4] {
			t.Errorf("%s: generated section %q ends as %q", rel, s[2], s[4])
			return m
		}
		gen, ok := generators[s[2]]
		if !ok {
			t.Errorf("%s: no generator for section %q", rel, s[2])
			return m
		}
		return s[1] + gen() + s[3]
	})
}

// includeFile replaces the code block after <!-- include: PATH --> with
// the file at PATH (relative to the repository root).
func includeFiles(t *testing.T, rel, text string) string {
	t.Helper()
	re := regexp.MustCompile("(?s)(<!-- include: ([^ ]+) -->\n```[a-z]*\n).*?(```\n)")
	return re.ReplaceAllStringFunc(text, func(m string) string {
		s := re.FindStringSubmatch(m)
		body, err := os.ReadFile(filepath.Join(repoRoot, s[2]))
		if err != nil {
			t.Errorf("%s: include %s: %v", rel, s[2], err)
			return m
		}
		return s[1] + string(body) + s[3]
	})
}

// TestDocsGeneratedSections: the generated sections (the bug corpus in
// docs/results.md) and included files (the example test in docs/go-api.md)
// are what the code and the files hold now.
func TestDocsGeneratedSections(t *testing.T) {
	seen := 0
	for _, rel := range runDocs(t) {
		text := readDoc(t, rel)
		want := includeFiles(t, rel, fillGenerated(t, rel, text))
		if want != text {
			writeOrCompare(t, rel, want)
		}
		seen += strings.Count(text, "<!-- begin generated: ") + strings.Count(text, "<!-- include: ")
	}
	if seen < 2 {
		t.Fatalf("%d generated sections or included files, want the corpus and the go-api example", seen)
	}
}

// machinePath matches an absolute path of a machine: a home, a temporary
// or a work directory.
var machinePath = regexp.MustCompile(`(^|[^A-Za-z0-9_.~-])(/work/|/tmp/|/home/|/root/|/Users/|/var/folders/|/private/var/|/mnt/|[A-Z]:\\\\)`)

// TestDocsNameNoMachinePath: no line of the docs carries a path of the
// machine that produced it (a replay line, a temporary file).
func TestDocsNameNoMachinePath(t *testing.T) {
	if !machinePath.MatchString("replay: cd /work/main/traces/locktest && go test") || machinePath.MatchString("go run ./cmd/locksim view out/t.json -o out/t.html") {
		t.Fatal("machinePath does not tell a machine path")
	}
	files := []string{"README.md", "HACKING.md", "DESIGN.md", "BENCHMARKS.md"}
	more, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	for _, f := range more {
		rel, _ := filepath.Rel(repoRoot, f)
		files = append(files, rel)
	}
	for _, rel := range files {
		for i, line := range strings.Split(readDoc(t, rel), "\n") {
			if machinePath.MatchString(line) {
				t.Errorf("%s:%d names a machine path: %s", rel, i+1, line)
			}
		}
	}
}

// TestDocsGoVersion: the README names go.mod's exact Go version and the
// module path its install command uses.
func TestDocsGoVersion(t *testing.T) {
	mod := readDoc(t, "go.mod")
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	readme := readDoc(t, "README.md")
	if !strings.Contains(readme, "Go "+m[1]) {
		t.Errorf("README.md does not name go.mod's Go version %s", m[1])
	}
	if !strings.Contains(readme, "go install "+modulePath(t)+"/cmd/locksim@latest") {
		t.Errorf("README.md lacks the install command of %s", modulePath(t))
	}
}

func modulePath(t *testing.T) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindStringSubmatch(readDoc(t, "go.mod"))
	if m == nil {
		t.Fatal("go.mod has no module line")
	}
	return m[1]
}

// TestDocsCIRunsTheReadmeTestCommand: the README's test command is the
// one .ci/run runs.
func TestDocsCIRunsTheReadmeTestCommand(t *testing.T) {
	readme := readDoc(t, "README.md")
	ci := readDoc(t, ".ci/run")
	m := regexp.MustCompile("(?m)^(go vet \\./\\.\\.\\. && go test [^#\n]*?)\\s*(#.*)?$").FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("README.md shows no `go vet ./... && go test ...` command")
	}
	if !strings.Contains(ci, "\n"+m[1]+"\n") {
		t.Errorf("README.md's test command %q is not a line of .ci/run", m[1])
	}
}

// TestDocsReadmeCountsTheCatalog: the README's "N protocols" is the
// catalog's size, and it names every workload and fault kind.
func TestDocsReadmeCountsTheCatalog(t *testing.T) {
	readme := readDoc(t, "README.md")
	ps := protocols.Protocols()
	if want := fmt.Sprintf("%d protocols", len(ps)); !strings.Contains(strings.Join(strings.Fields(readme), " "), want) {
		t.Errorf("README.md does not say %q", want)
	}
	var names []string
	for _, w := range protocols.Workloads() {
		names = append(names, w.Name)
	}
	names = append(names, trace.KindNames()...)
	for _, n := range names {
		if !strings.Contains(readme, "`"+n+"`") {
			t.Errorf("README.md does not name `%s`", n)
		}
	}
}
