package main

import (
	"flag"
	"os"
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
