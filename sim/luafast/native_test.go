package luafast

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2/server"
	"pgregory.net/rapid"
)

// Hostile pools for the registered scripts' KEYS and ARGV: keys that may
// hold strings, lists or hashes with non-integer fields; leases and ids
// that are not integers, negative, zero or too large.
var (
	twinKeys      = []string{"lock", "lock", "lock2", "chan", "latch"}
	twinIDs       = []string{"u1:1", "u1:1", "u2:7", "10", "x y"}
	twinLeases    = []string{"30000", "30000", "1500", "1", "0", "-5", "abc", "1.5", "", "9223372036854775807"}
	twinMsgs      = []string{"0", "m"}
	twinCmds      = []string{"PUBLISH", "PUBLISH", "PUBLISH", "publish", "get", "select"}
	twinLatches   = []string{"latch", "latch:1", "latch:2", "latch:3", "latch:4", "lock"}
	twinCounters  = []string{"tok", "tok", "lock"}
	twinLatchTTLs = []string{"30000", "1500", "1", "0", "abc"}
	twinLocks     = []string{"lock", "lock", "lock2"}
	twinTokens    = []string{"1", "5", "10", "10", "007", "-3", "-0", "abc", "1e3", "", "9223372036854775807"}
	twinVals      = []string{"0", "1", "abc", "2.5", "u1:1", "u2:7", "10", "007", "tok1meta"}
	twinValues    = []string{"tok1meta", "tok1meta", "tok1more", "tok2meta", ""}
	twinOffsets   = []string{"4", "4", "0", "8", "9", "-1", "abc", "04"}
)

// twinShape says which pool each KEYS and ARGV slot of a registered body
// draws from.
type twinShape struct{ keys, argv [][]string }

var twinShapes = map[string]twinShape{
	RedissonLock316:   {[][]string{twinKeys}, [][]string{twinLeases, twinIDs}},
	RedissonUnlock316: {[][]string{twinKeys, twinKeys}, [][]string{twinMsgs, twinLeases, twinIDs}},
	RedissonRenew316:  {[][]string{twinKeys}, [][]string{twinLeases, twinIDs}},
	CompareAndDelete:  {[][]string{twinKeys}, [][]string{twinIDs}},
}

// twinFamilies are bodies that act on the same keys.
var twinFamilies = [][]string{
	{RedissonLock316, RedissonUnlock316, RedissonRenew316},
	{RedissonLock316, CompareAndDelete},
}

// genTwinCall draws EVAL or EVALSHA of a registered body: mostly with the
// slots its script reads, sometimes with fewer or more.
func genTwinCall(t *rapid.T) []string { return genTwinCallOf(t, NativeBodies()) }

// genTwinCallOf draws the call of one of bodies.
func genTwinCallOf(t *rapid.T, bodies []string) []string {
	body := rapid.SampledFrom(bodies).Draw(t, "twin")
	shape := twinShapes[body]
	nk, na := len(shape.keys), len(shape.argv)
	if rapid.IntRange(0, 9).Draw(t, "odd") == 0 {
		nk = rapid.IntRange(0, nk+1).Draw(t, "nkeys")
		na = rapid.IntRange(0, na+1).Draw(t, "nargv")
	}
	args := []string{strconv.Itoa(nk)}
	slot := func(pools [][]string, i int) string {
		if i < len(pools) {
			return draw(t, pools[i], "slot")
		}
		return draw(t, twinLeases, "extra")
	}
	for i := range nk {
		args = append(args, slot(shape.keys, i))
	}
	for i := range na {
		args = append(args, slot(shape.argv, i))
	}
	return scriptCall(t, body, args...)
}

// genTwinSetup draws a command that leaves a key in a state the scripts
// must cope with.
func genTwinSetup(t *rapid.T) []string {
	k := draw(t, twinKeys, "key")
	return rapid.SampledFrom([][]string{
		{"SET", k, draw(t, twinVals, "val")},
		{"SET", k, "1", "PX", "1500"},
		{"HSET", k, draw(t, twinIDs, "field"), draw(t, []string{"1", "abc", "9223372036854775807", "-2"}, "val")},
		{"HINCRBY", k, draw(t, twinIDs, "field"), "1"},
		{"LPUSH", k, "x"},
		{"INCR", k},
		{"DEL", k},
		{"PEXPIRE", k, draw(t, twinLeases, "ms")},
		{"PERSIST", k},
		{"SCRIPT", "LOAD", rapid.SampledFrom(NativeBodies()).Draw(t, "load")},
		{"SCRIPT", "EXISTS", newScript(rapid.SampledFrom(NativeBodies()).Draw(t, "exists")).sha},
		{"SCRIPT", "FLUSH"},
	}).Draw(t, "setup")
}

// hijack makes the pre-hook answer every nth nested cmd with raw RESP (or
// panic, for "panic"), to give the scripts replies Redis would not.
type hijack struct {
	cmd, raw string
	nth      int
}

func genHijacks(t *rapid.T) []hijack {
	var hs []hijack
	for i := rapid.IntRange(0, 2).Draw(t, "hijacks"); i > 0; i-- {
		hs = append(hs, hijack{
			cmd: rapid.SampledFrom([]string{"EXISTS", "HEXISTS", "HINCRBY", "HSET", "PEXPIRE", "PTTL", "DEL", "UNLINK", "PUBLISH", "GET", "SET", "INCR",
				"MSETNX", "MSET", "MGET", "GETRANGE"}).Draw(t, "hcmd"),
			raw: rapid.SampledFrom([]string{":0\r\n", ":1\r\n", ":7\r\n", ":\r\n", "$1\r\n0\r\n", "$-1\r\n", "*-1\r\n", "+OK\r\n",
				"*1\r\n$3\r\nabc\r\n", "*1\r\n:4\r\n", "*1\r\n*-1\r\n", "-ERR hijacked\r\n", "-ERR 50% off\r\n", "*2\r\n:1\r\n$1\r\nx\r\n", "*1\r\n+S\r\n", "?\r\n", ":x\r\n", "$9\r\nab\r\n", "panic"}).Draw(t, "raw"),
			nth: rapid.IntRange(1, 4).Draw(t, "nth"),
		})
	}
	if rapid.IntRange(0, 3).Draw(t, "panics") == 0 {
		hs = append(hs, hijack{cmd: rapid.SampledFrom([]string{"HINCRBY", "PEXPIRE", "PUBLISH", "PTTL", "GET", "SET"}).Draw(t, "pcmd"),
			raw: "panic", nth: rapid.IntRange(1, 4).Draw(t, "pnth")})
	}
	return hs
}

// twinNode is a node whose pre-hook records every nested command and
// answers the hijacked ones; native says whether its engine runs twins.
type twinNode struct {
	*node
	native bool
	nested []string
	counts map[string]int
}

func newTwinNode(tb testTB, native bool, hs []hijack) *twinNode {
	n := &twinNode{node: newNode(tb, true), native: native, counts: map[string]int{}}
	if !native {
		n.eng.SetScripts(nil) // every script through the Lua VM
	}
	hook := func(c *server.Peer, cmd string, args ...string) bool {
		if n.eng.Handle(c, cmd, args) {
			return true
		}
		if c == n.peer || c == n.probe {
			return false
		}
		n.nested = append(n.nested, fmt.Sprintf("%s %q", cmd, args))
		n.counts[cmd]++
		for _, h := range hs {
			if h.cmd == cmd && n.counts[cmd]%h.nth == 0 {
				if h.raw == "panic" {
					panic("hijacked " + cmd)
				}
				c.WriteRaw(h.raw)
				return true
			}
		}
		return false
	}
	n.eng.SetPreHook(hook)
	return n
}

func (n *twinNode) run(args []string) string { return n.do(args...) }

// TestNativeMatchesLua runs random command sequences over every registered
// body on two engines, twins on and off: same replies, same keyspace, same
// nested commands seen by the pre-hook.
func TestNativeMatchesLua(t *testing.T) {
	maxLen := 300
	if testing.Short() || raceEnabled {
		maxLen = 100
	}
	var tally twinTally
	rapid.Check(t, func(rt *rapid.T) {
		hs := genHijacks(rt)
		if len(hs) > 0 {
			tally.hijacked.Add(1)
		}
		lua, nat := newTwinNode(rt, false, hs), newTwinNode(rt, true, hs)
		// Mostly one family per sequence, so that one's writes meet
		// another's reads.
		bodies := rapid.SampledFrom(append(slices.Clip(twinFamilies), NativeBodies())).Draw(rt, "family")
		var hist []string
		for i, n := 0, rapid.IntRange(maxLen/2, maxLen).Draw(rt, "len"); i < n; i++ {
			var cmd []string
			switch rapid.IntRange(0, 9).Draw(rt, "kind") {
			case 0:
				d := time.Duration(rapid.SampledFrom([]int{1, 1499, 1500, 30001}).Draw(rt, "ms")) * time.Millisecond
				lua.fastForward(d)
				nat.fastForward(d)
				hist = append(hist, fmt.Sprintf("FastForward(%v)", d))
				continue
			case 1, 2, 3:
				cmd = genTwinSetup(rt)
			default:
				cmd = genTwinCallOf(rt, bodies)
			}
			hist = append(hist, fmt.Sprintf("%q", cmd))
			if v := nat.eng.vm; v != nil {
				v.nat.next, v.nat.sentEnd = 0, v.nat.sentEnd[:0]
			}
			a, b := lua.run(cmd), nat.run(cmd)
			tally.observe(nat.eng.vm, cmd)
			if a != b {
				rt.Fatalf("reply mismatch for %q\nlua:    %q\nnative: %q\nhijacks %v\nhistory:\n%s", cmd, a, b, hs, strings.Join(hist, "\n"))
			}
			if x, y := lua.lru(), nat.lru(); x != y {
				rt.Fatalf("LRU clocks differ after %q\nlua:\n%s\nnative:\n%s\nhistory:\n%s", cmd, x, y, strings.Join(hist, "\n"))
			}
			if x, y := strings.Join(lua.nested, "\n"), strings.Join(nat.nested, "\n"); x != y {
				rt.Fatalf("nested commands differ after %q\nlua:\n%s\nnative:\n%s\nhijacks %v\nhistory:\n%s", cmd, x, y, hs, strings.Join(hist, "\n"))
			}
		}
		if a, b := lua.state(), nat.state(); a != b {
			rt.Fatalf("state mismatch\nlua:\n%s\nnative:\n%s\nhistory:\n%s", a, b, strings.Join(hist, "\n"))
		}
	})
	t.Logf("%d sequences with hijacks; %d runs handed to Lua after calls (%d after a write, %d after a panic)",
		tally.hijacked.Load(), tally.replayed.Load(), tally.afterWrite.Load(), tally.panics.Load())
	if testing.Short() {
		return
	}
	if tally.afterWrite.Load() == 0 || tally.panics.Load() == 0 {
		t.Error("no twin handed a run to Lua after a write or a panic: the generator lost its hostile cases")
	}
	var counts []string
	for _, body := range NativeBodies() {
		sha := newScript(body).sha
		n := int64(0)
		if c, ok := tally.wrote.Load(sha); ok {
			n = c.(*atomic.Int64).Load()
		}
		counts = append(counts, fmt.Sprintf("%s:%d", sha[:6], n))
	}
	t.Logf("runs that wrote answered by each twin: %s", strings.Join(counts, " "))
}

// twinTally counts what the twins did in TestNativeMatchesLua.
type twinTally struct {
	hijacked, replayed, afterWrite, panics atomic.Int64
	wrote                                  sync.Map // sha -> *atomic.Int64: runs that wrote its twin answered
}

// observe counts the run of cmd on an engine whose state is v.
func (c *twinTally) observe(v *vm, cmd []string) {
	if v == nil || len(v.nat.sentEnd) == 0 {
		return
	}
	x := &v.nat
	if x.next == 0 {
		if wrote(x.sent) && strings.HasPrefix(strings.ToUpper(cmd[0]), "EVAL") {
			sha := cmd[1]
			if !strings.HasPrefix(strings.ToUpper(cmd[0]), "EVALSHA") {
				sha = newScript(cmd[1]).sha
			}
			n, _ := c.wrote.LoadOrStore(sha, new(atomic.Int64))
			n.(*atomic.Int64).Add(1)
		}
		return
	}
	c.replayed.Add(1)
	if x.panicked {
		c.panics.Add(1)
	}
	if wrote(x.sent) {
		c.afterWrite.Add(1)
	}
}

// wrote reports whether sent (a twin's calls) holds a write command.
func wrote(sent []string) bool {
	for _, a := range sent {
		switch a {
		case "HINCRBY", "HSET", "PEXPIRE", "DEL", "UNLINK", "SET", "INCR", "PUBLISH", "MSET", "MSETNX":
			return true
		}
	}
	return false
}

// TestTwinsWriteNatively runs, for every registered body, a call that
// writes, twins on and off: the twin must answer it itself (a twin that
// handed every run to the VM would pass the random test) and as the VM.
func TestTwinsWriteNatively(t *testing.T) {
	acquire := []string{"EVAL", RedissonLock316, "1", "lock", "30000", "u1:1"}
	owned := []string{"SET", "lock", "u1:1"}
	cases := []struct {
		setup [][]string
		call  []string
	}{
		{nil, acquire},
		{[][]string{acquire}, []string{"EVAL", RedissonUnlock316, "2", "lock", "chan", "0", "30000", "u1:1"}},
		{[][]string{acquire}, []string{"EVAL", RedissonRenew316, "1", "lock", "30000", "u1:1"}},
		{[][]string{owned}, []string{"EVAL", CompareAndDelete, "1", "lock", "u1:1"}},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		lua, nat := newTwinNode(t, false, nil), newTwinNode(t, true, nil)
		for _, cmd := range append(c.setup, c.call) {
			if a, b := lua.run(cmd), nat.run(cmd); a != b {
				t.Fatalf("%.40q: lua %q, native %q", cmd, a, b)
			}
		}
		x := &nat.eng.vm.nat
		if x.next != 0 || !wrote(x.sent) {
			t.Errorf("the twin did not answer a writing run of %.60q itself (calls %q)", c.call[1], x.sent)
		}
		covered[c.call[1]] = true
	}
	for _, body := range NativeBodies() {
		if !covered[body] {
			t.Errorf("no case for the twin of %.60q", body)
		}
	}
}

// A twin that hands its run over relies on the VM compiling its body (run
// checks the compile after the twin: an error there would leave the record
// unreplayed).
func TestTwinBodiesCompile(t *testing.T) {
	for _, body := range NativeBodies() {
		if c := compileProto(body); c.err != nil {
			t.Errorf("%.50q: %v", body, c.err)
		}
	}
}
