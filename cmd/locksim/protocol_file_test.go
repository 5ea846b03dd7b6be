package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// copyProtocolFile copies a committed protocol file into the current
// directory as name, edited by replacing from with to.
func copyProtocolFile(t *testing.T, src, name, from, to string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if from != "" && !strings.Contains(string(b), from) {
		t.Fatalf("no %q in %s", from, src)
	}
	if err := os.WriteFile(name, []byte(strings.Replace(string(b), from, to, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

const luaDelFile = "protocols/testdata/protocol-files/setnx-lua-del.json"

// A described lock runs like a catalog protocol: the printed replay
// commands (run's, explore's) name the file as the user gave it and
// reproduce the run, and the trace file replays without the file.
func TestProtocolFileRunsAndReplays(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if err := os.Mkdir("locks", 0o755); err != nil {
		t.Fatal(err)
	}
	copyProtocolFile(t, filepath.Join(root, luaDelFile), "locks/mine.json", "", "")
	code, out, stderr := runCLI("run", "--protocol-file", "locks/mine.json", "--faults", "gc-pause", "--seed", "3", "--trace", "t.json", "--json")
	var s struct {
		Verdict     string `json:"verdict"`
		Protocol    string `json:"protocol"`
		TraceSHA256 string `json:"trace_sha256"`
		Replay      string `json:"replay"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != exitViolation {
		t.Fatalf("exit %d (%v): %s%s", code, err, out, stderr)
	}
	if s.Protocol != "seed-001-lua-del" || !strings.Contains(s.Replay, " --protocol-file locks/mine.json ") || strings.Contains(s.Replay, "--protocol ") {
		t.Fatalf("protocol %q, replay %q", s.Protocol, s.Replay)
	}
	if got := runHash(t, strings.Fields(s.Replay)[2:]...); got != s.TraceSHA256 {
		t.Fatalf("the replay command %q gives trace %.16s, the run %.16s", s.Replay, got, s.TraceSHA256)
	}
	code, out, stderr = runCLI("explore", "--protocol-file", "locks/mine.json", "--faults", "gc-pause", "--runs", "20", "--json")
	var sum struct {
		Causes []struct {
			FirstSeed uint64 `json:"first_seed"`
			Replay    string `json:"replay"`
		} `json:"causes"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || code != exitViolation || len(sum.Causes) == 0 {
		t.Fatalf("explore: exit %d (%v): %s%s", code, err, out, stderr)
	}
	for _, c := range sum.Causes {
		if !strings.Contains(c.Replay, "--protocol-file locks/mine.json") {
			t.Fatalf("explore's replay %q does not name the file", c.Replay)
		}
		if code, out, stderr := runCLI(strings.Fields(c.Replay)[1:]...); code != exitViolation {
			t.Fatalf("%s: exit %d: %s%s", c.Replay, code, out, stderr)
		}
	}
	// Without the file, the trace still replays and runs as a scenario.
	if err := os.Remove("locks/mine.json"); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := runCLI("replay", "t.json"); code != exitViolation {
		t.Fatalf("replay without the file: exit %d: %s%s", code, out, stderr)
	}
	if got := runHash(t, "--scenario", "t.json"); got != s.TraceSHA256 {
		t.Fatalf("the trace file's scenario gives trace %.16s, the run %.16s", got, s.TraceSHA256)
	}
}

// A bad protocol file fails every command that takes one with one line
// naming the file and the place in it, and exit 2.
func TestBadProtocolFileExitsTwo(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for _, c := range []struct{ name, from, to, want string }{
		{"unknown field", `"keys"`, `"kyes"`, `field "release.kyes" is unknown (did you mean "keys"?)`},
		{"lua syntax", `else    return 0 end`, `else    return 0 end end`, `release.script line 1: syntax error near 'end'`},
		{"missing field", `"lease_ms": 10000,`, ``, `field "lease_ms" is missing`},
		{"missing step", `"command": ["SET", "{key}", "{token}", "EX", "{lease_s}", "NX"],`, ``, `field "acquire" is missing`},
		{"unknown placeholder", `"{lease_s}"`, `"{lease}"`, `field "acquire.command[4]": unknown placeholder "{lease}" (did you mean "{lease_s}"?)`},
		{"quoted evalsha", `"keys": ["{key}"],`, `"keys": ["{key}"], "evalsha": "true",`,
			`field "release.evalsha" (line 14) is the string "true"; it takes true or false; write it without quotes: true`},
		{"reply outside a list", `"acquired": ["OK"]`, `"acquired": "OK"`,
			`field "acquire.acquired" (line 8) is the string "OK"; it takes a list of replies, each null, an integer or a string; put it in a list: ["OK"]`},
		{"quoted lease", `"lease_ms": 10000`, `"lease_ms": "10000"`,
			`field "lease_ms" (line 4) is the string "10000"; it takes a whole number of milliseconds; write it without quotes: 10000`},
		{"script of a number", `"script": "if redis.call('get', KEYS[1]) == ARGV[1] then    return redis.call('del', KEYS[1]) else    return 0 end"`, `"script": 42`,
			`field "release.script" (line 13) is the number 42; it takes a string or a list of lines`},
	} {
		copyProtocolFile(t, filepath.Join(root, luaDelFile), "bad.json", c.from, c.to)
		for _, args := range [][]string{
			{"run", "--protocol-file", "bad.json"},
			{"explore", "--protocol-file", "bad.json", "--runs", "2"},
			{"matrix", "--protocol-file", "bad.json", "--runs", "2"},
			{"verify", "--protocol-file", "bad.json"},
		} {
			code, out, stderr := runCLI(args...)
			want := "locksim " + args[0] + `: --protocol-file "bad.json": ` + c.want
			if code != exitUsage || out != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, want) {
				t.Errorf("%s: %v: exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", c.name, args, code, out, stderr, want)
			}
		}
	}
	if code, _, stderr := runCLI("run", "--protocol-file", "missing.json"); code != exitUsage || !strings.Contains(stderr, "missing.json") {
		t.Errorf("a missing file: exit %d, %q", code, stderr)
	}
	copyProtocolFile(t, filepath.Join(root, luaDelFile), "good.json", "", "")
	if code, _, stderr := runCLI("run", "--protocol", "setnx-del", "--protocol-file", "good.json"); code != exitUsage || !strings.Contains(stderr, `describes "seed-001-lua-del"`) {
		t.Errorf("--protocol with --protocol-file: exit %d, %q", code, stderr)
	}
}

// A protocol file whose script never finishes ends run and explore with
// one line naming the file, the step and what happened, and exit 2,
// instead of hanging them (the guard fails the test after a long while).
func TestUnfinishedScriptExitsTwo(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	copyProtocolFile(t, filepath.Join(root, luaDelFile), "spin.json",
		`"if redis.call('get', KEYS[1]) == ARGV[1] then    return redis.call('del', KEYS[1]) else    return 0 end"`, `"while true do end"`)
	for _, args := range [][]string{
		{"run", "--protocol-file", "spin.json"},
		{"explore", "--protocol-file", "spin.json", "--runs", "20"},
	} {
		done := make(chan struct{})
		var code int
		var out, stderr string
		go func() {
			defer close(done)
			code, out, stderr = runCLI(args...)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Minute):
			t.Fatalf("%v: still running after 5 minutes", args)
		}
		want := `--protocol-file "spin.json": release.script did not finish: still running after 10000000 instructions`
		if code != exitUsage || out != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "locksim "+args[0]+": ") || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", args, code, out, stderr, want)
		}
	}
}

// A key that expires early because its node's clock runs fast, while its
// holder's work fits the lease, is the drift's doing: run names the
// clock-drift cause, the rate and how early, and cites the fault.
func TestFastClockExpiryNamesTheDrift(t *testing.T) {
	code, out, stderr := runCLI("run", "--protocol-file", "../../docs/protocol-files/redis-py-lock.json",
		"--seed", "27", "--faults", "clock-drift", "--swarm")
	if code != exitViolation {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	for _, want := range []string{
		`clock-drift on the lock key "trava_nome_person-1", c1/t1 and c2/t1`,
		"the clock of redis ran 10.3% fast from t=6.3 s and c1/t1's key expired there at t=18.5 s, 937 ms before its lease ran out",
		"Faults cited: fault #1 (clock-drift:redis@6289+0=103482).",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "premature-expiry") {
		t.Errorf("a drift's early expiry filed as a premature expiry:\n%s", out)
	}
}
