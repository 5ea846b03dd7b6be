package sim

import (
	"testing"

	"github.com/locksim/locksim/sim/trace"
)

// A write's recorded change: a hash's value is its fields and values
// rendered as ":f=v" each, so two hashes that render alike are the same.
func TestKeyChangeOfHashes(t *testing.T) {
	w := New(Config{Seed: 1})
	n := w.AddNode("redis")
	for _, c := range []struct {
		cmd    []string
		change string
	}{
		{[]string{"HSET", "h", "a", "1"}, trace.KeyCreated},
		{[]string{"HSET", "h", "a", "1"}, ""},
		{[]string{"HINCRBY", "h", "a", "1"}, trace.KeyOverwritten},
		{[]string{"HSET", "h", "b", "2"}, trace.KeyOverwritten},
		{[]string{"EVAL", "redis.call('HSET', KEYS[1], 'a', '2:b=2') return redis.call('HDEL', KEYS[1], 'b')", "1", "h"}, ""},
		{[]string{"PEXPIRE", "h", "1000"}, ""},
		{[]string{"HDEL", "h", "a"}, trace.KeyDeleted},
	} {
		if r := n.execConn(1, "c1", c.cmd); r.IsErr() {
			t.Fatalf("%q: %v", c.cmd, r)
		}
		ev := w.rec.first[len(w.rec.first)-1]
		if ev.Change != c.change {
			t.Errorf("%q recorded change %q, want %q", c.cmd, ev.Change, c.change)
		}
	}
}
