package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A doc's commands: every line of a ```sh block, every `$ ` line of a
// ```console block (whose following lines are the command's output, up to
// the next `$ ` line), and every `go run ./cmd/locksim` of a ```yaml
// block (CI files). locksim commands run in-process, in order, in one
// temporary directory per file; go commands (test, vet, install) are
// checked against the repository: their packages exist and every -run,
// -bench or -fuzz pattern selects a test of them.

type docCommand struct {
	line    int      // 1-based line of the command in its file
	text    string   // as shown
	output  []string // a console block's shown output
	console bool
	// outStart and outEnd delimit the output lines in the file (0-based,
	// end exclusive), for -update.
	outStart, outEnd int
}

// parseDocCommands reads a doc's commands.
func parseDocCommands(text string) []docCommand {
	lines := strings.Split(text, "\n")
	var cmds []docCommand
	fence, lang := "", ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trimmed := strings.TrimSpace(l)
		if fence == "" {
			if strings.HasPrefix(trimmed, "```") {
				fence, lang = "```", strings.TrimPrefix(trimmed, "```")
			}
			continue
		}
		if trimmed == fence {
			fence = ""
			continue
		}
		switch lang {
		case "sh":
			if trimmed == "" || strings.HasPrefix(trimmed, "#") {
				continue
			}
			start := i
			cmd := trimmed
			for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
				i++
				cmd = strings.TrimSuffix(cmd, "\\") + " " + strings.TrimSpace(lines[i])
			}
			cmds = append(cmds, docCommand{line: start + 1, text: cmd})
		case "console":
			if !strings.HasPrefix(l, "$ ") {
				continue
			}
			c := docCommand{line: i + 1, text: strings.TrimPrefix(l, "$ "), console: true, outStart: i + 1}
			for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "$ ") && strings.TrimSpace(lines[i+1]) != "```" {
				i++
				c.output = append(c.output, lines[i])
			}
			c.outEnd = i + 1
			cmds = append(cmds, c)
		case "yaml", "yml":
			if k := strings.Index(l, "go run ./cmd/locksim"); k >= 0 {
				for _, c := range expandShards(strings.TrimSpace(l[k:])) {
					cmds = append(cmds, docCommand{line: i + 1, text: c})
				}
			}
		}
	}
	return cmds
}

// expandShards turns a CI file's command into the commands its jobs run:
// one per shard K of --shard K/N when K is a CI placeholder (a GitHub
// Actions matrix value or a Kubernetes Indexed Job's completion index),
// with a container's absolute /results/ directory made relative.
func expandShards(cmd string) []string {
	cmd = strings.ReplaceAll(cmd, "/results/", "results/")
	m := regexp.MustCompile(`--shard (\$\{\{ matrix\.shard \}\}|\$\(\(JOB_COMPLETION_INDEX\+1\)\))/(\d+)`).FindStringSubmatch(cmd)
	if m == nil {
		return []string{cmd}
	}
	n, _ := strconv.Atoi(m[2])
	var out []string
	for k := 1; k <= n; k++ {
		out = append(out, strings.NewReplacer(
			"${{ matrix.shard }}", strconv.Itoa(k),
			"$((JOB_COMPLETION_INDEX+1))", strconv.Itoa(k),
			"$JOB_COMPLETION_INDEX", strconv.Itoa(k-1),
		).Replace(cmd))
	}
	return out
}

// docWords splits a command line as sh does for the quoting docs use:
// single and double quotes, no expansion. A trailing # comment goes.
func docWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '#' && !in:
			i = len(s)
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// volatile parts of an output: wall-clock times and speeds, which the
// comparison masks (the doc shows the values of the -update run).
var volatile = []*regexp.Regexp{
	regexp.MustCompile(`\b(simulated|runs) in [0-9.,]+ ?(ns|µs|ms|s|m|h)\b`),
	regexp.MustCompile(`[0-9.,]+ runs/s`),
	regexp.MustCompile(`[0-9.,]+x simulated time over wall time`),
}

func maskVolatile(s string) string {
	for _, re := range volatile {
		s = re.ReplaceAllString(s, "<time>")
	}
	return s
}

// heavy: a matrix or verify of every protocol costs tens of seconds of
// CPU (minutes under -race): run only without -race and -short.
func heavy(args []string) bool {
	if len(args) == 0 || args[0] != "matrix" && args[0] != "verify" {
		return false
	}
	for _, a := range args {
		if a == "--protocols" || strings.HasPrefix(a, "--protocols=") {
			return false
		}
	}
	return true
}

// locksimArgs returns the arguments of a locksim command line, or false.
func locksimArgs(words []string) ([]string, bool) {
	switch {
	case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/locksim":
		return words[3:], true
	case len(words) >= 1 && words[0] == "locksim":
		return words[1:], true
	}
	return nil, false
}

// TestDocsCommandsRun runs every command the docs show.
func TestDocsCommandsRun(t *testing.T) {
	total := 0
	for _, rel := range runDocs(t) {
		text := readDoc(t, rel)
		cmds := parseDocCommands(text)
		if len(cmds) == 0 {
			continue
		}
		lines := strings.Split(text, "\n")
		changed := false
		t.Run(strings.ReplaceAll(rel, "/", "_"), func(t *testing.T) {
			t.Chdir(t.TempDir())
			dir, _ := os.Getwd()
			// The docs' example files (protocol files, histories), where
			// their commands (run from the repository's root) find them.
			if err := os.Mkdir("docs", 0o755); err != nil {
				t.Fatal(err)
			}
			subs, err := os.ReadDir(filepath.Join(repoRoot, "docs"))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range subs {
				if d.IsDir() {
					if err := os.Symlink(filepath.Join(repoRoot, "docs", d.Name()), filepath.Join("docs", d.Name())); err != nil {
						t.Fatal(err)
					}
				}
			}
			// Work back from the last command so that -update's
			// replacements keep the earlier line numbers valid: run in
			// order, collect, then rewrite.
			type rewrite struct {
				start, end int
				out        []string
			}
			var rewrites []rewrite
			for _, c := range cmds {
				total++
				for _, part := range strings.Split(c.text, "&&") {
					words := docWords(strings.TrimSpace(part))
					for len(words) > 0 && regexp.MustCompile(`^[A-Z_]+=`).MatchString(words[0]) {
						words = words[1:] // an environment setting of a go test
					}
					if len(words) == 0 {
						t.Errorf("%s:%d: empty command", rel, c.line)
						continue
					}
					args, ok := locksimArgs(words)
					if !ok {
						checkGoCommand(t, rel, c.line, words)
						continue
					}
					if heavy(args) && (raceEnabled || testing.Short()) {
						t.Logf("%s:%d: %s: skipped under -race and -short", rel, c.line, c.text)
						continue
					}
					args, stdin, err := stdinRedirect(args)
					if err != nil {
						t.Errorf("%s:%d: %s: %v", rel, c.line, c.text, err)
						continue
					}
					code, stdout, stderr := runCLIWithStdin(stdin, args...)
					if code != exitOK && code != exitViolation {
						t.Errorf("%s:%d: %s: exit %d\n%s", rel, c.line, c.text, code, stderr)
						continue
					}
					if strings.Contains(stdout+stderr, dir) {
						t.Errorf("%s:%d: %s prints the path of its directory", rel, c.line, c.text)
					}
					if !c.console {
						continue
					}
					got := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
					if *updateDocs {
						rewrites = append(rewrites, rewrite{c.outStart, c.outEnd, got})
					} else if maskVolatile(strings.Join(got, "\n")) != maskVolatile(strings.Join(c.output, "\n")) {
						t.Errorf("%s:%d: the output of `%s` changed:\n%s\nregenerate: %s", rel, c.line, c.text,
							firstDiff(strings.Join(c.output, "\n"), strings.Join(got, "\n")), regenerate)
					}
				}
			}
			for i := len(rewrites) - 1; i >= 0; i-- {
				r := rewrites[i]
				lines = append(lines[:r.start], append(append([]string{}, r.out...), lines[r.end:]...)...)
				changed = true
			}
		})
		if changed {
			if err := os.WriteFile(filepath.Join(repoRoot, rel), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if total < 10 {
		t.Fatalf("only %d commands in the docs", total)
	}
}

// stdinRedirect takes a `< FILE` off a command's arguments and opens
// FILE as its standard input ("" when there is none).
func stdinRedirect(args []string) ([]string, string, error) {
	for i, a := range args {
		if a != "<" {
			continue
		}
		if i+1 >= len(args) {
			return nil, "", fmt.Errorf("< names no file")
		}
		return append(append([]string{}, args[:i]...), args[i+2:]...), args[i+1], nil
	}
	return args, "", nil
}

// runCLIWithStdin runs the CLI with the file path (if any) as its
// standard input. The package's tests do not run in parallel, so
// os.Stdin can be swapped for the call.
func runCLIWithStdin(path string, args ...string) (int, string, string) {
	if path == "" {
		return runCLI(args...)
	}
	f, err := os.Open(path)
	if err != nil {
		return exitUsage, "", err.Error() + "\n"
	}
	defer f.Close()
	saved := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = saved }()
	return runCLI(args...)
}

// checkGoCommand checks a go (or git clone, cd) command of a doc against
// the repository without running it: go test inside go test would run the
// suite again.
func checkGoCommand(t *testing.T, rel string, line int, words []string) {
	t.Helper()
	switch words[0] {
	case "cd":
		return // into the clone: the commands run at the repository's root
	case "git":
		if len(words) == 3 && words[1] == "clone" && words[2] == "https://"+modulePath(t) {
			return
		}
		t.Errorf("%s:%d: %v: only `git clone https://%s` is known", rel, line, words, modulePath(t))
		return
	case "go":
	default:
		t.Errorf("%s:%d: %v: not a command the docs test can run or check", rel, line, words)
		return
	}
	if len(words) < 2 {
		t.Errorf("%s:%d: bare go", rel, line)
		return
	}
	switch words[1] {
	case "install":
		for _, w := range words[2:] {
			if strings.HasPrefix(w, "-") {
				continue
			}
			pkg, _, _ := strings.Cut(w, "@")
			if strings.HasPrefix(pkg, "./") {
				pkg = modulePath(t) + strings.TrimPrefix(pkg, ".")
			}
			dir, ok := strings.CutPrefix(pkg, modulePath(t))
			if !ok || !isDir(filepath.Join(repoRoot, dir)) {
				t.Errorf("%s:%d: go install %s: no such package in %s", rel, line, w, modulePath(t))
			}
		}
	case "test", "vet", "build", "run":
		var pkgs []string
		patterns := map[string]string{}
		for i := 2; i < len(words); i++ {
			w := words[i]
			switch w {
			case "-run", "-bench", "-fuzz", "-timeout", "-count", "-benchtime", "-cpu", "-fuzztime", "-o", "-memprofile", "-cpuprofile":
				if i+1 < len(words) {
					patterns[w] = words[i+1]
					i++
				}
				continue
			}
			if strings.HasPrefix(w, "-") {
				continue
			}
			if strings.HasPrefix(w, "./") || w == "." {
				pkgs = append(pkgs, w)
			}
		}
		if len(pkgs) == 0 {
			t.Errorf("%s:%d: %v names no package", rel, line, words)
		}
		var funcs []string
		for _, p := range pkgs {
			dir := filepath.Join(repoRoot, strings.TrimSuffix(p, "/..."))
			if !isDir(dir) {
				t.Errorf("%s:%d: %s: no such package", rel, line, p)
				continue
			}
			funcs = append(funcs, testFuncs(t, dir, strings.HasSuffix(p, "/..."))...)
		}
		for flagName, kind := range map[string]string{"-run": "Test", "-bench": "Benchmark", "-fuzz": "Fuzz"} {
			pat, ok := patterns[flagName]
			if !ok || pat == "." || pat == "^$" {
				continue
			}
			if _, bench := patterns["-bench"]; flagName == "-run" && (bench || patterns["-fuzz"] != "") {
				continue // -run XXX beside -bench or -fuzz: run no test, whatever its name
			}
			top, _, _ := strings.Cut(pat, "/") // a subtest's pattern is not checked
			re, err := regexp.Compile(top)
			if err != nil {
				t.Errorf("%s:%d: %s %q: %v", rel, line, flagName, pat, err)
				continue
			}
			found := false
			for _, f := range funcs {
				if (strings.HasPrefix(f, kind) || flagName == "-run" && strings.HasPrefix(f, "Example")) && re.MatchString(f) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s:%d: %s %q selects no %s function of %v", rel, line, flagName, pat, kind, pkgs)
			}
		}
	default:
		t.Errorf("%s:%d: go %s: not a command the docs test checks", rel, line, words[1])
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

var testFuncRe = regexp.MustCompile(`(?m)^func ((Test|Benchmark|Fuzz|Example)[A-Za-z0-9_]*)\(`)

// testFuncs lists the test, benchmark, fuzz and example functions of the
// package in dir (and below it when recursive).
func testFuncs(t *testing.T, dir string, recursive bool) []string {
	t.Helper()
	var names []string
	walk := func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && (!recursive || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, "_test.go") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range testFuncRe.FindAllStringSubmatch(string(b), -1) {
				names = append(names, m[1])
			}
		}
		return nil
	}
	if err := filepath.WalkDir(dir, walk); err != nil {
		t.Fatal(err)
	}
	return names
}

// TestDocsShowNoUnrunCommand: a command line shown in a block the docs
// test does not run (```text, ```console without `$ `, a bare ```) is
// refused unless a `<!-- Not run ... -->` comment right above the block
// says why. docs/cli.md, the help texts, is left to TestDocsCLIReference.
func TestDocsShowNoUnrunCommand(t *testing.T) {
	command := regexp.MustCompile(`^\s*(\$ )?(locksim|go run \./cmd/locksim|python3|go test|go run) `)
	message := regexp.MustCompile(`^\s*locksim [a-z]+:`) // an error message, not a command
	for _, rel := range runDocs(t) {
		if rel == filepath.Join("docs", "cli.md") {
			continue
		}
		lines := strings.Split(readDoc(t, rel), "\n")
		fence, lang, excused := false, "", false
		for i, l := range lines {
			trimmed := strings.TrimSpace(l)
			if strings.HasPrefix(trimmed, "```") {
				if !fence {
					lang = strings.TrimPrefix(trimmed, "```")
					excused = i > 0 && strings.HasSuffix(strings.TrimSpace(lines[i-1]), "-->") && notRunComment(lines[:i])
				}
				fence = !fence
				continue
			}
			if !fence || lang == "sh" || lang == "console" || lang == "yaml" || lang == "yml" || lang == "go" || excused {
				continue
			}
			if command.MatchString(l) && !message.MatchString(l) {
				t.Errorf("%s:%d shows a command in a ```%s block, which no test runs (make it ```sh, or say why above it in <!-- Not run ... -->): %s",
					rel, i+1, lang, trimmed)
			}
		}
	}
}

// notRunComment reports whether the lines end with a <!-- Not run ... -->
// comment.
func notRunComment(lines []string) bool {
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-6; i-- {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "<!-- Not run") {
			return true
		}
	}
	return false
}
