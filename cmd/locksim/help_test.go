package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEveryFlagInHelpAndReadme: every flag each command defines is in its
// --help (with `locksim help CMD` saying the same) and in the command's
// section of docs/cli.md (the reference the README points to).
func TestEveryFlagInHelpAndReadme(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	var sets []*flagSet
	flagSetHook = func(fs *flagSet) { sets = append(sets, fs) }
	defer func() { flagSetHook = nil }()
	total := 0
	for _, c := range commands() {
		if c.run == nil {
			continue
		}
		sets = nil
		code, help, stderr := runCLI(c.name, "--help")
		if code != exitOK || stderr != "" || len(sets) != 1 {
			t.Fatalf("%s --help: exit %d, %q, %d flag sets", c.name, code, stderr, len(sets))
		}
		if _, again, _ := runCLI("help", c.name); again != help {
			t.Errorf("locksim help %s differs from %s --help", c.name, c.name)
		}
		if !strings.HasPrefix(help, "usage: locksim "+c.name) || !strings.Contains(help, "Exit status:") {
			t.Errorf("%s --help:\n%s", c.name, help)
		}
		_, cli, _ := strings.Cut(string(ref), "\n## locksim "+c.name+"\n")
		cli, _, _ = strings.Cut(cli, "\n## ")
		sets[0].VisitAll(func(f *flag.Flag) {
			total++
			name := "--" + f.Name
			if len(f.Name) == 1 {
				name = "-" + f.Name
			}
			if !strings.Contains(help, "  "+name+" ") {
				t.Errorf("%s --help lacks %s", c.name, name)
			}
			if !strings.Contains(cli, name) {
				t.Errorf("docs/cli.md's %s section lacks %s", c.name, name)
			}
		})
	}
	if total < 40 {
		t.Fatalf("only %d flags seen", total)
	}
	for _, want := range []string{"exit status 1", "--version", "locksim help"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README lacks %q", want)
		}
	}
}

// TestInternalErrorIsItsOwnExitCode: a panic is exit 4 with its first
// line and a request to report it, not "bad usage".
func TestInternalErrorIsItsOwnExitCode(t *testing.T) {
	var errb strings.Builder
	code := internalError(&errb, "index out of range [3] with length 3\ngoroutine 1 [running]:\n...")
	if code != exitInternal || code == exitUsage {
		t.Fatalf("exit %d", code)
	}
	if msg := errb.String(); strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "index out of range [3]") || !strings.Contains(msg, "please report") {
		t.Fatalf("message %q", msg)
	}
}

// TestHelpExamplesRun: every command's example (its --help, `locksim
// help` and docs/cli.md print it) runs as shown, in the order a user
// would try them, in one directory: run writes the trace that replay
// and view read, explore the trace that shrink reads. merge's shards and
// check's history are made first, as a user would have them. Under
// -race and -short, explore's 10,000 runs become 300 (the cause shrink
// reads is found within them).
func TestHelpExamplesRun(t *testing.T) {
	t.Chdir(t.TempDir())
	for k := 1; k <= 2; k++ {
		shard := fmt.Sprintf("%d/2", k)
		if code, _, stderr := runCLI("explore", "--protocol", "setnx-del", "--faults", "gc-pause", "--runs", "20",
			"--shard", shard, "--out", fmt.Sprintf("shard%d", k)); code != exitViolation {
			t.Fatalf("shard %s: exit %d, %s", shard, code, stderr)
		}
	}
	history, err := os.ReadFile(filepath.Join(repoRoot, "docs", "check", "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("history.jsonl", history, 0o644); err != nil {
		t.Fatal(err)
	}
	order := []string{"run", "replay", "view", "explore", "shrink", "check", "merge", "matrix", "verify", "list", "help"}
	if len(order) != len(commands()) {
		t.Fatalf("the order names %d commands, there are %d", len(order), len(commands()))
	}
	for _, name := range order {
		c, ok := lookupCommand(name)
		if !ok {
			t.Fatalf("no command %s", name)
		}
		args, ok := locksimArgs(docWords(c.example))
		if !ok || len(args) == 0 || args[0] != name {
			t.Errorf("%s's example %q is not a locksim %s command", name, c.example, name)
			continue
		}
		if name == "explore" && (raceEnabled || testing.Short()) {
			args = slices.Clone(args)
			args[slices.Index(args, "--runs")+1] = "300"
		}
		code, out, stderr := runCLI(args...)
		if code != exitOK && code != exitViolation {
			t.Errorf("%s: exit %d\n%s%s", c.example, code, out, stderr)
		}
	}
	for _, f := range []string{"trace.json", "trace.html", "out/summary.json", "min.json", "timeline.html", "merged.html"} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("the examples did not write %s: %v", f, err)
		}
	}
}
