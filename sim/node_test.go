package sim

import "testing"

// The node reads DB 0 directly: after a SWAPDB from a client, from
// inside a transaction or from a script, it reads the new one.
func TestNodeFollowsSwapDB(t *testing.T) {
	w := New(Config{Seed: 1})
	n := w.AddNode("redis")
	for i, cmd := range [][]string{
		{"SET", "k", "v"},
		{"SWAPDB", "0", "1"},
		{"SET", "k2", "v"},
		{"MULTI"},
		{"SWAPDB", "0", "1"},
		{"EXEC"},
		{"EVAL", "return redis.call('SWAPDB', '0', '1')", "0"},
		{"EVAL", "return redis.call('SET', KEYS[1], 'v')", "1", "k3"},
	} {
		r := n.execConn(1, "c1", cmd)
		if r.IsErr() {
			t.Fatalf("%q: %v", cmd, r)
		}
		if n.db != n.m.DB(0) {
			t.Fatalf("after command %d %q the node reads another DB than DB 0", i, cmd)
		}
	}
	if got := n.db.Keys(); len(got) != 2 || got[0] != "k2" || got[1] != "k3" {
		t.Fatalf("DB 0 holds %q, want k2 and k3", got)
	}
}
