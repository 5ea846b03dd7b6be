package luafast

import (
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2/server"
)

func expect(t *testing.T, n *node, want string, args ...string) {
	t.Helper()
	if got := n.do(args...); got != want {
		t.Errorf("%q: got %q, want %q", args, got, want)
	}
}

func TestHandleIgnoresOtherCommands(t *testing.T) {
	n := newNode(t, true)
	if n.eng.Handle(n.peer, "GET", []string{"k"}) {
		t.Fatal("Handle took GET")
	}
	expect(t, n, "+OK\r\n", "SET", "k", "v")
}

// math.random follows Redis: rand48 seeded with 0 at every script run.
func TestMathRandomIsRedisCompatible(t *testing.T) {
	n := newNode(t, true)
	// Redis's documented sequence (Lua prints numbers with %.14g).
	floats := "local f = function() return string.format('%.14g', math.random()) end return {f(), f(), f()}"
	wantFloats := "*3\r\n$16\r\n0.17082803611217\r\n$16\r\n0.74990198051087\r\n$16\r\n0.09637165539729\r\n"
	ints := "return {math.random(1000000), math.random(1000000), math.random(1000000)}"
	wantInts := "*3\r\n:170829\r\n:749902\r\n:96372\r\n"
	for i := 0; i < 2; i++ { // same sequence on every run
		expect(t, n, wantFloats, "EVAL", floats, "0")
		expect(t, n, wantInts, "EVAL", ints, "0")
	}
	expect(t, n, ":1\r\n", "EVAL", "math.randomseed(7) local a = math.random() math.randomseed(7) return a == math.random()", "0")
	expect(t, n, wantInts, "EVAL", ints, "0")
	if got := n.do("EVAL", "return math.random(0)", "0"); !strings.Contains(got, "interval is empty") {
		t.Errorf("math.random(0): %q", got)
	}
}

func TestGlobalsDoNotLeak(t *testing.T) {
	n := newNode(t, true)
	for _, c := range [][2]string{
		{"rawset(_G, 'leak', 1) return leak", ":1\r\n"},
		{"return rawget(_G, 'leak')", "$-1\r\n"},
		{"KEYS = nil ARGV = 5 redis = nil return 1", ":1\r\n"},
		{"return {#KEYS, #ARGV, type(redis)}", "*3\r\n:1\r\n:0\r\n$5\r\ntable\r\n"},
		{"setmetatable(_G, nil) free = 1 return free", ":1\r\n"},
		{"return rawget(_G, 'free')", "$-1\r\n"},
		{"KEYS[3] = 'x' KEYS.y = 1 setmetatable(ARGV, {__index = function() return 'z' end}) return 1", ":1\r\n"},
		{"return {#KEYS, tostring(KEYS.y), tostring(ARGV[1])}", "*3\r\n:1\r\n$3\r\nnil\r\n$3\r\nnil\r\n"},
		{"setfenv(0, {}) return 1", ":1\r\n"},
		{"return loadstring('return type(redis)')()", "$5\r\ntable\r\n"},
	} {
		expect(t, n, c[1], "EVAL", c[0], "1", "key")
	}
	if got := n.do("EVAL", "newglobal = 1", "0"); !strings.Contains(got, "Script attempted to create global variable 'newglobal'") {
		t.Errorf("global write: %q", got)
	}
}

func TestScriptCache(t *testing.T) {
	n := newNode(t, true)
	sha := newScript("return 1").sha
	expect(t, n, "-NOSCRIPT No matching script. Please use EVAL.\r\n", "EVALSHA", sha, "0")
	expect(t, n, ":1\r\n", "EVAL", "return 1", "0")
	expect(t, n, ":1\r\n", "EVALSHA", sha, "0")
	expect(t, n, "*2\r\n:1\r\n:0\r\n", "SCRIPT", "EXISTS", sha, strings.ToUpper(sha))
	// A failing EVAL does not register its script.
	bad := "error('x')"
	n.do("EVAL", bad, "0")
	expect(t, n, "-NOSCRIPT No matching script. Please use EVAL.\r\n", "EVALSHA", newScript(bad).sha, "0")
	expect(t, n, "$40\r\n"+newScript("return 2").sha+"\r\n", "SCRIPT", "LOAD", "return 2")
	expect(t, n, ":2\r\n", "EVALSHA_RO", newScript("return 2").sha, "0")
	expect(t, n, "+OK\r\n", "SCRIPT", "FLUSH")
	expect(t, n, "-NOSCRIPT No matching script. Please use EVAL.\r\n", "EVALSHA", sha, "0")
}

// Nested commands go through the pre-hook, which may answer them itself.
func TestNestedCommandsUsePreHook(t *testing.T) {
	n := newNode(t, true)
	var seen []string
	n.m.Server().SetPreHook(func(c *server.Peer, cmd string, args ...string) bool {
		if n.eng.Handle(c, cmd, args) {
			return true
		}
		seen = append(seen, cmd)
		if cmd == "PUBLISH" {
			c.WriteInt(7)
			return true
		}
		return false
	})
	expect(t, n, "$-1\r\n", "EVAL", redissonAcquire, "1", "lock", "30000", "u1:1")
	expect(t, n, ":1\r\n", "EVAL", redissonRelease, "2", "lock", "chan", "0", "30000", "u1:1")
	expect(t, n, ":7\r\n", "EVAL", "return redis.call('publish', 'c', 'm')", "0")
	want := "EXISTS HINCRBY PEXPIRE HEXISTS HINCRBY DEL PUBLISH PUBLISH"
	if got := strings.Join(seen, " "); got != want {
		t.Errorf("pre-hook saw %q, want %q", got, want)
	}
	expect(t, n, ":0\r\n", "EXISTS", "lock")
}

func TestAcquireAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("alloc count")
	}
	n := newNode(t, true)
	sha := newScript(redissonAcquire).sha
	n.do("SCRIPT", "LOAD", redissonAcquire)
	args := []string{"EVALSHA", sha, "1", "lock", "30000", "u1:1"}
	allocs := testing.AllocsPerRun(1000, func() {
		n.buf.Reset()
		n.m.Server().Dispatch(n.peer, args)
	})
	// 14 with miniredis v2.40.0, nearly all inside miniredis's commands.
	if allocs > 20 {
		t.Errorf("%v allocs per acquire", allocs)
	}
}
