package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A protocol file whose step fails at run time (a misspelt command, a
// reading of the wrong type, a script that raises an error, a template
// that never names the token) would make every acquire or release fail,
// and a lock nobody holds is never unsafe: run would print OK and
// explore "not found". Loading it runs it once fault-free and refuses it
// with one line naming the step and what it answered, and exit 2. The
// files are the committed examples as a user would edit them.
func TestProtocolFileFailingAtRunTimeExitsTwo(t *testing.T) {
	t.Chdir(t.TempDir())
	const (
		redisPy  = "docs/protocol-files/redis-py-lock.json"
		redlock  = "docs/protocol-files/node-redlock-single.json"
		refresh  = "protocols/testdata/protocol-files/setnx-px-lua-refresh.json"
		noReply  = "in a fault-free run, a reply the file does not declare"
		relNever = `release.script answered no released reading in a fault-free run (the first release, of a lock just taken, answered the integer 0, a not_held reading)`
	)
	for _, c := range []struct {
		name, src string
		edits     []string // from, to, ...
		want      string
	}{
		{"misspelt command", redisPy, []string{`["SET",`, `["SETT",`},
			"acquire.command answered the error \"ERR unknown command `SETT`, with args beginning with: "},
		{"reading of the wrong type", redlock, []string{`"acquired": [1]`, `"acquired": ["1"]`},
			`acquire.script answered the integer 1 ` + noReply + ` (its acquired/held readings); the file's "1" is a string: an integer reply is written without quotes, 1`},
		{"KEYS[2] that is not given", redisPy, []string{`redis.call('del', KEYS[1])`, `redis.call('del', KEYS[2])`},
			`release.script answered the error "ERR Error compiling script (new function): :5: Lua redis lib command arguments must be strings or integers script: `},
		{"ARGV[2] that is not given", redisPy, []string{`token ~= ARGV[1]`, `token ~= ARGV[2]`}, relNever},
		{"unknown command in a script", redisPy, []string{`redis.call('get'`, `redis.call('gett'`},
			`release.script answered the error "ERR Error compiling script (new function): :1: Unknown Redis command called from script script: `},
		{"released reading of the wrong reply", redisPy, []string{`"released": [1]`, `"released": ["OK"]`},
			`release.script answered the integer 1 ` + noReply + ` (its released/not_held readings)`},
		{"shell-style template", redisPy, []string{`"argv": ["{token}"]`, `"argv": ["${token}"]`}, relNever},
		{"renewal that raises an error", refresh, []string{`KEYS[1], ARGV[2])`, `KEYS[1], ARGV[3])`, `"not_held": [0],` + "\n    " + `"otherwise": "not_held"` + "\n", `"not_held": [0]` + "\n"},
			`renew.script answered the error "ERR Error compiling script (new function): :2: Lua redis lib command arguments must be strings or integers script: `},
		{"error read as a reading by otherwise", refresh, []string{`KEYS[1], ARGV[2])`, `KEYS[1], ARGV[3])`},
			`" in a fault-free run: Redis raised it, so the step is broken, although the file's "otherwise" reads it as not_held`},
		{"every acquire read as held", redisPy, []string{`"acquired": ["OK"],`, `"acquired": [1], "otherwise": "held",`},
			`acquire.command answered no acquired reading in a fault-free run, so no client ever held the lock (the first acquire answered the string "OK", a held reading)`},
	} {
		b, err := os.ReadFile(filepath.Join(repoRoot, c.src))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for i := 0; i < len(c.edits); i += 2 {
			if !strings.Contains(s, c.edits[i]) {
				t.Fatalf("%s: no %q in %s", c.name, c.edits[i], c.src)
			}
			s = strings.Replace(s, c.edits[i], c.edits[i+1], 1)
		}
		if err := os.WriteFile("bad.json", []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"run", "--protocol-file", "bad.json"},
			{"explore", "--protocol-file", "bad.json", "--runs", "2"},
		} {
			code, out, stderr := runCLI(args...)
			prefix := "locksim " + args[0] + `: --protocol-file "bad.json": `
			if code != exitUsage || out != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, prefix) || !strings.Contains(stderr, c.want) {
				t.Errorf("%s: %v: exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q with %q", c.name, args, code, out, stderr, prefix, c.want)
			}
		}
	}
}

// Every committed protocol file, the documented examples among them,
// still loads and runs.
func TestCommittedProtocolFilesRun(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(repoRoot, "docs/protocol-files/*.json"))
	more, _ := filepath.Glob(filepath.Join(repoRoot, "protocols/testdata/protocol-files/*.json"))
	if paths = append(paths, more...); len(paths) < 6 {
		t.Fatalf("found %d protocol files", len(paths))
	}
	for _, p := range paths {
		if code, out, stderr := runCLI("run", "--protocol-file", p, "--ops", "1"); code != exitOK && code != exitViolation {
			t.Errorf("%s: exit %d: %s%s", p, code, out, stderr)
		}
	}
}
