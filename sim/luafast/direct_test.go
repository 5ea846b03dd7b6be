package luafast

import (
	"testing"
	"time"
)

// A missing field's HEXISTS is served directly only after the run's EXISTS
// set the key's LRU clock (Redisson's lock script), never as an unlock's
// first call, whose HEXISTS leaves the clock alone.
func TestDirectHexistsKeepsLRU(t *testing.T) {
	lock := []string{"EVAL", RedissonLock316, "1", "lock", "30000", "u1:1"}
	unlock := []string{"EVAL", RedissonUnlock316, "2", "lock", "chan", "0", "30000", "u1:1"}
	for _, c := range []struct {
		call        []string
		idle        string
		dispatchedN int // commands miniredis served (the direct ones are not counted)
	}{
		{unlock, ":10\r\n", 1},
		{lock, ":0\r\n", 0},
	} {
		lua, nat := newTwinNode(t, false, nil), newTwinNode(t, true, nil)
		for _, n := range []*twinNode{lua, nat} {
			n.run([]string{"EVAL", RedissonLock316, "1", "lock", "30000", "u2:7"})
			n.fastForward(10 * time.Second)
		}
		before := nat.m.Server().TotalCommands()
		if a, b := lua.run(c.call), nat.run(c.call); a != b {
			t.Fatalf("%.30q: lua %q, native %q", c.call[1], a, b)
		}
		if got := nat.m.Server().TotalCommands() - before; got != c.dispatchedN {
			t.Errorf("%.30q: %d nested commands dispatched, want %d", c.call[1], got, c.dispatchedN)
		}
		for _, n := range []*twinNode{lua, nat} {
			if got := n.probeDo("OBJECT", "IDLETIME", "lock"); got != c.idle {
				t.Errorf("%.30q (native %v): idle %q, want %q", c.call[1], n.native, got, c.idle)
			}
		}
	}
}

// A twin's PUBLISH calls the engine's publish function, not the pre-hook,
// and replies its count.
func TestDirectPublish(t *testing.T) {
	n := newTwinNode(t, true, nil)
	var got []string
	n.eng.SetPublish(func(channel, msg string) int {
		got = append(got, channel, msg)
		return 3
	})
	n.run([]string{"EVAL", RedissonLock316, "1", "lock", "30000", "u1:1"})
	reply := n.run([]string{"EVAL", RedissonUnlock316, "2", "lock", "chan", "0", "30000", "u1:1"})
	if reply != ":1\r\n" || len(got) != 2 || got[0] != "chan" || got[1] != "0" {
		t.Errorf("reply %q, published %q", reply, got)
	}
	if n.counts["PUBLISH"] != 0 {
		t.Errorf("the pre-hook saw %d PUBLISH", n.counts["PUBLISH"])
	}
}
