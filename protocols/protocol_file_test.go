package protocols

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// The committed descriptions load, and write back as they read.
func TestProtocolFilesLoad(t *testing.T) {
	paths, _ := filepath.Glob("testdata/protocol-files/*.json")
	more, _ := filepath.Glob("../docs/protocol-files/*.json")
	paths = append(paths, more...)
	if len(paths) < 2 {
		t.Fatalf("found %d protocol files", len(paths))
	}
	for _, p := range paths {
		f, err := LoadProtocolFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(f.Description)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseProtocolDescription(b)
		if err != nil {
			t.Fatalf("%s written back: %v", p, err)
		}
		if !reflect.DeepEqual(again, f.Description) {
			t.Fatalf("%s: written back %+v, read %+v", p, again, f.Description)
		}
	}
}

// A bad description fails with one line naming the field (and the
// script's line).
func TestProtocolFileErrors(t *testing.T) {
	good, err := os.ReadFile("testdata/protocol-files/setnx-lua-del.json")
	if err != nil {
		t.Fatal(err)
	}
	edit := func(from, to string) string {
		if !strings.Contains(string(good), from) {
			t.Fatalf("no %q in the file", from)
		}
		return strings.Replace(string(good), from, to, 1)
	}
	for _, c := range []struct{ name, file, want string }{
		{"unknown field", edit(`"keys"`, `"kyes"`), `field "release.kyes" is unknown (did you mean "keys"?)`},
		{"unknown top field", edit(`"lease_ms"`, `"lease_sm"`), `field "lease_sm" is unknown (did you mean "lease_ms"?)`},
		{"lua syntax", edit(`else    return 0 end`, `else    return 0 end end`), `release.script line 1: syntax error near 'end'`},
		{"lua syntax on a later line", edit(`"script": "if redis.call('get', KEYS[1]) == ARGV[1] then    return redis.call('del', KEYS[1]) else    return 0 end"`,
			`"script": ["if redis.call('get', KEYS[1]) == ARGV[1] then", "  return redis.call('del' KEYS[1])", "end"]`),
			`release.script line 2: syntax error near 'KEYS'`},
		{"missing name", edit(`"name": "seed-001-lua-del",`, ``), `field "name" is missing`},
		{"missing release", edit(`"script"`, `"scrip"`), `field "release.scrip" is unknown (did you mean "script"?)`},
		{"missing step", edit(`"command": ["SET", "{key}", "{token}", "EX", "{lease_s}", "NX"],`, ``), `field "acquire" is missing: give "acquire.command" or "acquire.script"`},
		{"unknown placeholder", edit(`"{lease_s}"`, `"{lease}"`), `field "acquire.command[4]": unknown placeholder "{lease}" (did you mean "{lease_s}"?)`},
		{"unknown token placeholder", edit(`"{uuid}{thread}"`, `"{uuid}{thead}"`), `field "token": unknown placeholder "{thead}" (did you mean "{thread}"?)`},
		{"unclosed token placeholder", edit(`"{uuid}{thread}"`, `"{uuid"`), `field "token": "{uuid" is never closed by '}': did you mean "{uuid}"?`},
		{"unclosed placeholder after text", edit(`"{uuid}{thread}"`, `"lock-{thread"`), `field "token": "{thread" is never closed by '}': did you mean "{thread}"?`},
		{"unopened placeholder", edit(`"{uuid}{thread}"`, `"{uuid}thread}"`), `field "token": "thread}" has no '{' before it: did you mean "{thread}"?`},
		{"stray brace", edit(`"{uuid}{thread}"`, `"{uuid}{"`), `field "token": "{" is never closed by '}': a placeholder is one of {uuid}, {hex}, {thread}, {client}`},
		{"unclosed argument placeholder", edit(`"{lease_s}"`, `"{lease_s"`), `field "acquire.command[4]": "{lease_s" is never closed by '}': did you mean "{lease_s}"?`},
		{"owner check without token", edit(`"argv": ["{token}"]`, `"argv": ["x"]`), `field "release.owner_checked" is true, but the release never passes {token}`},
		{"bad reading", edit(`"otherwise": "held"`, `"otherwise": "hled"`), `field "acquire.otherwise": unknown reading "hled" (did you mean "held"?)`},
		{"bad reply", edit(`"held": [null]`, `"held": [true]`), `field "acquire.held" (line 9) holds true; it takes a list of replies, each null, an integer or a string`},
		{"catalog name", edit(`"seed-001-lua-del"`, `"setnx-lua-del"`), `"setnx-lua-del" is a catalog protocol's name`},
		{"json syntax", edit(`"lease_ms": 10000,`, `"lease_ms": 10000,,`), `line 4: invalid character ','`},
		{"wrong type", edit(`"lease_ms": 10000`, `"lease_ms": "10s"`), `field "lease_ms" (line 4) is the string "10s"; it takes a whole number of milliseconds`},
		{"quoted number", edit(`"lease_ms": 10000`, `"lease_ms": "10000"`), `field "lease_ms" (line 4) is the string "10000"; it takes a whole number of milliseconds; write it without quotes: 10000`},
		{"quoted bool", edit(`"owner_checked": true`, `"owner_checked": "true"`), `field "release.owner_checked" (line 19) is the string "true"; it takes true or false; write it without quotes: true`},
		{"quoted evalsha", edit(`"keys": ["{key}"],`, `"keys": ["{key}"], "evalsha": "true",`), `field "release.evalsha" (line 14) is the string "true"; it takes true or false; write it without quotes: true`},
		{"reply outside a list", edit(`"acquired": ["OK"]`, `"acquired": "OK"`), `field "acquire.acquired" (line 8) is the string "OK"; it takes a list of replies, each null, an integer or a string; put it in a list: ["OK"]`},
		{"script of a number", edit(`"script": "if redis.call('get', KEYS[1]) == ARGV[1] then    return redis.call('del', KEYS[1]) else    return 0 end"`, `"script": 42`),
			`field "release.script" (line 13) is the number 42; it takes a string or a list of lines`},
		{"script line of a number", edit(`"script": "if redis.call('get', KEYS[1]) == ARGV[1] then    return redis.call('del', KEYS[1]) else    return 0 end"`, "\"script\": [\n\"return 1\",\n 2]"),
			`field "release.script" (line 15) holds the number 2; it takes a string or a list of lines`},
		{"key of a number", edit(`"keys": ["{key}"]`, `"keys": [1]`), `field "release.keys" (line 14) holds the number 1; it takes a list of strings`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseProtocolDescription([]byte(c.file))
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line containing %q", err, c.want)
			}
		})
	}
}

// A scenario embeds the description: it runs, and reads back from its
// JSON, without the file.
func TestScenarioEmbedsProtocolFile(t *testing.T) {
	f, err := LoadProtocolFile("testdata/protocol-files/setnx-lua-del.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Scenario{Seed: 3, ProtocolFile: f, FaultKinds: []string{"gc-pause"}}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if sc.Protocol != "seed-001-lua-del" || sc.LeaseMs != 10000 {
		t.Fatalf("normalized: protocol %q, lease %d", sc.Protocol, sc.LeaseMs)
	}
	b, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseScenario(b)
	if err != nil {
		t.Fatal(err)
	}
	_, tr1, err := Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	_, tr2, err := Run(back)
	if err != nil {
		t.Fatal(err)
	}
	if tr1.Hash() != tr2.Hash() {
		t.Fatal("the scenario read back from JSON ran another trace")
	}
	other := sc
	other.Protocol = "setnx-lua-del"
	if _, err := other.Normalize(); err == nil || !strings.Contains(err.Error(), "describes") {
		t.Fatalf("a scenario naming another protocol than its file's: %v", err)
	}
	broken := *f
	broken.Description.Release.Script = Script{"return ("}
	sc.ProtocolFile = &broken
	if _, err := sc.Normalize(); err == nil || !strings.Contains(err.Error(), "release.script line 1") {
		t.Fatalf("a scenario embedding a broken script: %v", err)
	}
}

// A retry policy retries inside one acquire: with the lock held for
// 5 s, a described acquire of 3 attempts 100 ms apart sends its SET 3
// times, 100 ms apart, before it reports the lock held; the EVALSHA
// release falls back to EVAL on NOSCRIPT.
func TestProtocolFileRetriesAndEvalSHA(t *testing.T) {
	f, err := LoadProtocolFile("../docs/protocol-files/redis-py-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	f.Description.Retry = &RetryPolicy{IntervalMs: 100, Attempts: 3}
	_, tr, err := Run(Scenario{Seed: 1, ProtocolFile: f, Clients: 2, Ops: 1, WorkMs: 5000, StaggerMs: 50})
	if err != nil {
		t.Fatal(err)
	}
	var failed *trace.Op
	for i, op := range tr.Ops {
		if op.Kind == model.OpAcquire && op.Result == model.ResFail {
			failed = &tr.Ops[i]
			break
		}
	}
	if failed == nil {
		t.Fatal("no acquire found the lock held")
	}
	var sets []int64
	evalsha, eval := 0, 0
	for _, e := range tr.Events {
		switch {
		case e.Kind != trace.EvCommand || len(e.Args) == 0:
		case e.Args[0] == "SET" && e.Client == failed.Client && e.T >= failed.Call && e.T <= failed.Return:
			sets = append(sets, e.T)
		case e.Args[0] == "EVALSHA":
			evalsha++
		case e.Args[0] == "EVAL":
			eval++
		}
	}
	if len(sets) != 3 || sets[1]-sets[0] < 100e6 || sets[2]-sets[1] < 100e6 || sets[2]-sets[0] > 300e6 {
		t.Fatalf("the failed acquire sent SET at %v, want 3 tries 100 ms apart", sets)
	}
	if evalsha == 0 || eval == 0 {
		t.Fatalf("EVALSHA %d, EVAL %d: want the release by EVALSHA with its NOSCRIPT fallback", evalsha, eval)
	}
}

// The load's fault-free run of each committed description sees the lock
// taken, refused to the other client (a declared held reading, which is
// no reason to refuse the file) and released, and refuses nothing.
func TestProtocolFileProbeAcceptsCommittedLocks(t *testing.T) {
	paths, _ := filepath.Glob("testdata/protocol-files/*.json")
	more, _ := filepath.Glob("../docs/protocol-files/*.json")
	for _, path := range append(paths, more...) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ParseProtocolDescription(b)
		if err != nil {
			t.Fatal(err)
		}
		p, msg := (&ProtocolFile{Path: path, Description: d}).runProbe()
		if msg != "" || p.yes[probeAcquire] == 0 || p.yes[probeRelease] == 0 || p.firstNo[probeAcquire] == nil {
			t.Errorf("%s: refused %q; %d acquired, %d released, first held reply %v", path, msg, p.yes[probeAcquire], p.yes[probeRelease], p.firstNo[probeAcquire])
		}
		if d.Renew != nil && p.yes[probeRenew] == 0 {
			t.Errorf("%s: the fault-free run renewed nothing", path)
		}
	}
}
