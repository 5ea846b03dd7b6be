package luafast

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// guard fails the test if f has not returned after a long while (a hang
// would otherwise last until go test's own timeout): a guard against a
// hang, not a measure of speed.
func guard(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("still running after 2 minutes: the script was not stopped")
	}
}

// A script that never finishes stops at MaxScriptSteps instructions,
// counted, never timed: its caller gets an error reply, the engine
// reports an *UnfinishedError, and the next script runs as usual.
func TestUnfinishedScriptStops(t *testing.T) {
	for _, c := range []struct {
		name   string
		before string // a script run first, which finishes
		script string
	}{
		{name: "while", script: "while true do end"},
		{name: "repeat", script: "repeat local x = 1 until false"},
		{name: "numeric for", script: "for i = 1, math.huge do end return 1"},
		{name: "generic for", script: "local t = {1} for k, v in ipairs(t) do t[k + 1] = v end return 1"},
		{name: "tail call", script: "local function f() return f() end return f()"},
		{name: "pcall cannot swallow it", script: "for i = 1, 100 do pcall(function() while true do end end) end return 1"},
		{name: "coroutine.create", script: "local co = coroutine.create(function() while true do end end) coroutine.resume(co) return 1"},
		{name: "coroutine.wrap", script: "local f = coroutine.wrap(function() while true do end end) f() return 1"},
		{name: "loadstring", script: "return loadstring('while true do end')()"},
		{name: "redis.call in a loop", script: "while true do redis.call('INCR', KEYS[1]) end"},
		// The second script alone has no loop: it calls a function the
		// first stored in a library table, shared between scripts.
		{name: "a function stored by an earlier script",
			before: "string.spin = function() while true do end end return 1",
			script: "return string.spin()"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := newNode(t, true)
			var got []error
			n.eng.SetOnUnfinished(func(err error) { got = append(got, err) })
			if c.before != "" {
				expect(t, n, ":1\r\n", "EVAL", c.before, "0")
			}
			var reply string
			guard(t, func() { reply = n.do("EVAL", c.script, "1", "n") })
			if !strings.HasPrefix(reply, "-") || !strings.Contains(reply, "did not finish") {
				t.Fatalf("reply %q, want an error saying the script did not finish", reply)
			}
			var ue *UnfinishedError
			if len(got) != 1 || !errors.As(got[0], &ue) || ue.Script != c.script {
				t.Fatalf("reported %v, want one UnfinishedError of the script", got)
			}
			expect(t, n, ":100000\r\n", "EVAL", "local n = 0 for i = 1, 100000 do n = n + 1 end return n", "0")
			if len(got) != 1 {
				t.Fatalf("a script that finished was reported: %v", got[1:])
			}
		})
	}
}

// The count stops a script at the same instruction every time: what it
// did before is the same on every run, whatever the machine's load.
func TestUnfinishedScriptStopsAtTheSameInstruction(t *testing.T) {
	counts := map[string]bool{}
	for range 3 {
		n := newNode(t, true)
		n.eng.SetOnUnfinished(func(error) {})
		guard(t, func() { n.do("EVAL", "while true do redis.call('INCR', KEYS[1]) end", "1", "n") })
		counts[n.do("GET", "n")] = true
	}
	if len(counts) != 1 {
		t.Fatalf("the script stopped after different counts of INCR: %v", counts)
	}
}
