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
