package luafast

import "testing"

// A Lua state goes back to the pool only untouched: a script that changes
// a library table must not be seen by the next engine.
func TestPooledStateDoesNotLeakBetweenEngines(t *testing.T) {
	a := newNode(t, true)
	if got := a.do("EVAL", "string.leak = 'yes' return 1", "0"); got != ":1\r\n" {
		t.Fatalf("got %q", got)
	}
	a.eng.Close()
	b := newNode(t, true)
	if got := b.do("EVAL", "return tostring(string.leak)", "0"); got != "$3\r\nnil\r\n" {
		t.Fatalf("library change leaked into another engine: %q", got)
	}
	b.eng.Close()
	c := newNode(t, true)
	if got := c.do("EVAL", "return redis.call('ping')", "0"); got != "+PONG\r\n" {
		t.Fatalf("pooled state broken: %q", got)
	}
	c.eng.Close()
}

func TestInertScripts(t *testing.T) {
	for src, want := range map[string]bool{
		"if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end": true,
		"local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); return counter":                       true,
		"string.leak = 1":                              false,
		"table.insert(KEYS, 'x')":                      false,
		"local t = {} t[1] = 2":                        false,
		"x = 1":                                        false,
		"rawset(string, 'leak', 1)":                    false,
		"return tostring(ARGV[1])":                     true,
		"setmetatable(string, nil)":                    false,
		"local f = function() return 1 end return f()": true,
	} {
		if got := compileProto(src).inert; got != want {
			t.Errorf("%q: inert %v, want %v", src, got, want)
		}
	}
}
