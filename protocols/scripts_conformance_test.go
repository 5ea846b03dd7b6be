package protocols

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
	"pgregory.net/rapid"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/luafast"
)

// The conformance test of the fast paths: every script a protocol
// declares (Protocol.Scripts) runs on two nodes, one whose engine runs
// the fast paths and one whose engine runs every script on the Lua VM,
// over generated keyspaces, keys, arguments, TTLs and times. The replies,
// the nested commands each sends, and the resulting keyspaces (values,
// TTLs, LRU clocks) must be equal after every command.

// Hostile pools for KEYS and ARGV: keys that may hold strings, lists or
// hashes with non-integer fields; leases and ids that are not integers,
// negative, zero or too large.
var (
	confKeys      = []string{"lock", "lock", "lock2", "chan", "latch"}
	confIDs       = []string{"u1:1", "u1:1", "u2:7", "10", "x y"}
	confLeases    = []string{"30000", "30000", "1500", "1", "0", "-5", "abc", "1.5", "", "9223372036854775807"}
	confMsgs      = []string{"0", "m"}
	confCmds      = []string{"PUBLISH", "PUBLISH", "PUBLISH", "publish", "get", "select"}
	confLatches   = []string{"latch", "latch:1", "latch:2", "lock"}
	confCounters  = []string{"tok", "tok", "lock"}
	confLatchTTLs = []string{"30000", "1500", "1", "0", "abc"}
	confTokens    = []string{"1", "5", "10", "10", "007", "-3", "-0", "abc", "1e3", "", "9223372036854775807"}
	confVals      = []string{"0", "1", "abc", "2.5", "u1:1", "u2:7", "10", "007", "tok1meta"}
	confValues    = []string{"tok1meta", "tok1meta", "tok1more", "tok2meta", ""}
	confOffsets   = []string{"4", "4", "0", "8", "9", "-1", "abc", "04"}
)

// scriptShape says which pool each KEYS and ARGV slot of a script draws
// from. A script a protocol declares must have one here.
type scriptShape struct{ keys, argv [][]string }

var scriptShapes = map[string]scriptShape{
	redissonLock316:    {[][]string{confKeys}, [][]string{confLeases, confIDs}},
	redissonUnlock316:  {[][]string{confKeys, confKeys}, [][]string{confMsgs, confLeases, confIDs}},
	redissonRenew316:   {[][]string{confKeys}, [][]string{confLeases, confIDs}},
	redissonLock312:    {[][]string{confKeys}, [][]string{confLeases, confIDs}},
	redissonLockLatest: {[][]string{confKeys}, [][]string{confLeases, confIDs}},
	redissonUnlockLatest: {[][]string{confKeys, confKeys, confLatches},
		[][]string{confMsgs, confLeases, confIDs, confCmds, confLatchTTLs}},
	redissonRenewLatest:   {[][]string{confKeys, confKeys}, [][]string{confLeases, confIDs, confIDs}},
	redissonFencedLock:    {[][]string{confKeys, confCounters}, [][]string{confLeases, confIDs}},
	compareAndDelete:      {[][]string{confKeys}, [][]string{confIDs}},
	redsyncDelete:         {[][]string{confKeys}, [][]string{confIDs}},
	redsyncTouch:          {[][]string{confKeys}, [][]string{confIDs, confLeases}},
	redsyncTouchWithSetNX: {[][]string{confKeys}, [][]string{confIDs, confLeases}},
	springObtain:          {[][]string{confKeys}, [][]string{confIDs, confLeases}},
	springUnlinkUnlock:    {[][]string{confKeys}, [][]string{confIDs}},
	springDeleteUnlock:    {[][]string{confKeys}, [][]string{confIDs}},
	fencedWrite:           {[][]string{confKeys, confKeys}, [][]string{confTokens, confIDs}},
	redislockObtain:       {[][]string{confKeys}, [][]string{confValues, confOffsets, confLeases}},
	redislockRelease:      {[][]string{confKeys}, [][]string{confValues}},
	redislockRefresh:      {[][]string{confKeys}, [][]string{confValues, confLeases}},
	setnxRefresh:          {[][]string{confKeys}, [][]string{confIDs, confLeases}},
}

// catalogScripts returns every script the catalog's protocols declare,
// once each, and the scripts of each protocol (its family: scripts that
// act on the same keys).
func catalogScripts() (all []sim.Script, families [][]sim.Script) {
	seen := map[string]bool{}
	for _, p := range Protocols() {
		if len(p.Scripts) == 0 {
			continue
		}
		families = append(families, p.Scripts)
		for _, s := range p.Scripts {
			if !seen[s.Source] {
				seen[s.Source] = true
				all = append(all, s)
			}
		}
	}
	return all, families
}

// confNode is one in-process miniredis with a script engine, driven as
// the simulator drives it; fast says whether the engine runs fast paths.
type confNode struct {
	m        *miniredis.Miniredis
	eng      *luafast.Engine
	peer     *server.Peer
	buf      bytes.Buffer
	probe    *server.Peer
	probeBuf bytes.Buffer
	now      time.Time
	nested   []string
	counts   map[string]int
	answered bool // the last fast path run answered without the VM
}

// confHijack makes the pre-hook answer every nth nested cmd with raw
// RESP, to give the scripts replies Redis would not.
type confHijack struct {
	cmd, raw string
	nth      int
}

func newConfNode(tb interface {
	Fatal(...any)
	Cleanup(func())
}, scripts []sim.Script, hs []confHijack) *confNode {
	m := miniredis.NewMiniRedis()
	c, err := m.Dial()
	if err != nil {
		tb.Fatal(err)
	}
	c.Close()
	tb.Cleanup(m.Close)
	n := &confNode{m: m, now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), counts: map[string]int{}}
	m.SetTime(n.now)
	n.peer = server.NewPeer(bufio.NewWriter(&n.buf))
	n.probe = server.NewPeer(bufio.NewWriter(&n.probeBuf))
	n.eng = luafast.New(m, nil)
	var wrapped []sim.Script
	for _, s := range scripts {
		fp := s.FastPath
		s.FastPath = func(x *luafast.ScriptRun) bool {
			n.answered = fp(x)
			return n.answered
		}
		wrapped = append(wrapped, s)
	}
	n.eng.SetScripts(wrapped)
	n.eng.SetPreHook(func(c *server.Peer, cmd string, args ...string) bool {
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
				c.WriteRaw(h.raw)
				return true
			}
		}
		return false
	})
	return n
}

func (n *confNode) do(args []string) string {
	n.buf.Reset()
	n.m.Server().Dispatch(n.peer, args)
	n.peer.Flush()
	return n.buf.String()
}

func (n *confNode) probeDo(args ...string) string {
	n.probeBuf.Reset()
	n.m.Server().Dispatch(n.probe, args)
	n.probe.Flush()
	return n.probeBuf.String()
}

func (n *confNode) fastForward(d time.Duration) {
	n.m.FastForward(d)
	n.now = n.now.Add(d)
	n.m.SetTime(n.now)
}

// keyspace describes every key of DB 0: type, value, TTL and LRU clock.
func (n *confNode) keyspace() string {
	var b strings.Builder
	b.WriteString(n.m.Dump())
	db := n.m.DB(0)
	keys := db.Keys()
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%q %s ttl=%v idle=%q\n", k, db.Type(k), db.TTL(k), n.probeDo("OBJECT", "IDLETIME", k))
	}
	return b.String()
}

func drawFrom(t *rapid.T, pool []string, label string) string {
	return rapid.SampledFrom(pool).Draw(t, label)
}

// genScriptCall draws EVAL or EVALSHA of one of scripts: mostly with the
// slots its script reads, sometimes with fewer or more.
func genScriptCall(t *rapid.T, scripts []sim.Script) []string {
	s := rapid.SampledFrom(scripts).Draw(t, "script")
	shape := scriptShapes[s.Source]
	nk, na := len(shape.keys), len(shape.argv)
	if rapid.IntRange(0, 9).Draw(t, "odd") == 0 {
		nk = rapid.IntRange(0, nk+1).Draw(t, "nkeys")
		na = rapid.IntRange(0, na+1).Draw(t, "nargv")
	}
	slot := func(pools [][]string, i int) string {
		if i < len(pools) {
			return drawFrom(t, pools[i], "slot")
		}
		return drawFrom(t, confLeases, "extra")
	}
	cmd := rapid.SampledFrom([]string{"EVAL", "EVAL", "EVAL", "EVALSHA", "eval"}).Draw(t, "evalcmd")
	body := s.Source
	if cmd == "EVALSHA" {
		body = s.SHA1()
	}
	args := []string{cmd, body, strconv.Itoa(nk)}
	for i := range nk {
		args = append(args, slot(shape.keys, i))
	}
	for i := range na {
		args = append(args, slot(shape.argv, i))
	}
	return args
}

// genKeyState draws a command that leaves a key in a state the scripts
// must cope with.
func genKeyState(t *rapid.T, scripts []sim.Script) []string {
	k := drawFrom(t, confKeys, "key")
	return rapid.SampledFrom([][]string{
		{"SET", k, drawFrom(t, confVals, "val")},
		{"SET", k, "1", "PX", "1500"},
		{"HSET", k, drawFrom(t, confIDs, "field"), drawFrom(t, []string{"1", "abc", "9223372036854775807", "-2"}, "hval")},
		{"HINCRBY", k, drawFrom(t, confIDs, "field"), "1"},
		{"LPUSH", k, "x"},
		{"INCR", k},
		{"DEL", k},
		{"PEXPIRE", k, drawFrom(t, confLeases, "ms")},
		{"PERSIST", k},
		{"SCRIPT", "LOAD", rapid.SampledFrom(scripts).Draw(t, "load").Source},
		{"SCRIPT", "FLUSH"},
	}).Draw(t, "setup")
}

func genConfHijacks(t *rapid.T) []confHijack {
	var hs []confHijack
	for i := rapid.IntRange(0, 2).Draw(t, "hijacks"); i > 0; i-- {
		hs = append(hs, confHijack{
			cmd: rapid.SampledFrom([]string{"EXISTS", "HEXISTS", "HINCRBY", "HSET", "PEXPIRE", "PTTL", "DEL", "UNLINK",
				"PUBLISH", "GET", "SET", "INCR", "MSETNX", "MSET", "MGET", "GETRANGE"}).Draw(t, "hcmd"),
			raw: rapid.SampledFrom([]string{":0\r\n", ":1\r\n", ":7\r\n", "$1\r\n0\r\n", "$-1\r\n", "*-1\r\n", "+OK\r\n",
				"*1\r\n$3\r\nabc\r\n", "*1\r\n:4\r\n", "-ERR hijacked\r\n", "*2\r\n:1\r\n$1\r\nx\r\n"}).Draw(t, "raw"),
			nth: rapid.IntRange(1, 4).Draw(t, "nth"),
		})
	}
	return hs
}

// TestFastPathsMatchScripts is the conformance test of every fast path
// the catalog declares.
func TestFastPathsMatchScripts(t *testing.T) {
	all, families := catalogScripts()
	for _, s := range all {
		if _, ok := scriptShapes[s.Source]; !ok {
			t.Fatalf("no generator shape for the script %.60q: add it to scriptShapes", s.Source)
		}
	}
	maxLen := 200
	if testing.Short() || raceEnabled {
		maxLen = 60
	}
	rapid.Check(t, func(rt *rapid.T) {
		hs := genConfHijacks(rt)
		// Mostly one protocol's scripts per sequence, so that one's
		// writes meet another's reads.
		scripts := rapid.SampledFrom(append(slices.Clip(families), all)).Draw(rt, "family")
		vm, fast := newConfNode(rt, nil, hs), newConfNode(rt, all, hs)
		var hist []string
		for i, n := 0, rapid.IntRange(maxLen/2, maxLen).Draw(rt, "len"); i < n; i++ {
			var cmd []string
			switch rapid.IntRange(0, 9).Draw(rt, "kind") {
			case 0:
				d := time.Duration(rapid.SampledFrom([]int{1, 1499, 1500, 30001}).Draw(rt, "ms")) * time.Millisecond
				vm.fastForward(d)
				fast.fastForward(d)
				hist = append(hist, fmt.Sprintf("FastForward(%v)", d))
				continue
			case 1, 2, 3:
				cmd = genKeyState(rt, scripts)
			default:
				cmd = genScriptCall(rt, scripts)
			}
			hist = append(hist, fmt.Sprintf("%.90q", cmd))
			a, b := vm.do(cmd), fast.do(cmd)
			if a != b {
				rt.Fatalf("reply differs for %.90q\nscript:    %q\nfast path: %q\nhistory:\n%s", cmd, a, b, strings.Join(hist, "\n"))
			}
			if x, y := strings.Join(vm.nested, "\n"), strings.Join(fast.nested, "\n"); x != y {
				rt.Fatalf("nested commands differ after %.90q\nscript:\n%s\nfast path:\n%s\nhistory:\n%s", cmd, x, y, strings.Join(hist, "\n"))
			}
			if x, y := vm.keyspace(), fast.keyspace(); x != y {
				rt.Fatalf("keyspace differs after %.90q\nscript:\n%s\nfast path:\n%s\nhistory:\n%s", cmd, x, y, strings.Join(hist, "\n"))
			}
		}
	})
}

// TestFastPathsAnswerWrites runs, for every declared script, a call that
// writes: the fast path must answer it itself (one that handed every run
// to the VM would pass the random test), with the script's reply.
func TestFastPathsAnswerWrites(t *testing.T) {
	all, _ := catalogScripts()
	acquire := []string{"EVAL", redissonLock316, "1", "lock", "30000", "u1:1"}
	acquireLatest := []string{"EVAL", redissonLockLatest, "1", "lock", "30000", "u1:1"}
	owned := []string{"SET", "lock", "u1:1"}
	obtain := []string{"EVAL", redislockObtain, "1", "lock", "tok1meta", "4", "30000"}
	cases := []struct {
		setup [][]string
		call  []string
	}{
		{nil, acquire},
		{[][]string{acquire}, []string{"EVAL", redissonUnlock316, "2", "lock", "chan", "0", "30000", "u1:1"}},
		{[][]string{acquire}, []string{"EVAL", redissonRenew316, "1", "lock", "30000", "u1:1"}},
		{nil, []string{"EVAL", redissonLock312, "1", "lock", "30000", "u1:1"}},
		{nil, acquireLatest},
		{[][]string{acquireLatest}, []string{"EVAL", redissonUnlockLatest, "3", "lock", "chan", "latch:1", "0", "30000", "u1:1", "PUBLISH", "30000"}},
		{[][]string{acquireLatest}, []string{"EVAL", redissonRenewLatest, "1", "lock", "30000", "u1:1"}},
		{nil, []string{"EVAL", redissonFencedLock, "2", "lock", "tok", "30000", "u1:1"}},
		{[][]string{owned}, []string{"EVAL", compareAndDelete, "1", "lock", "u1:1"}},
		{[][]string{owned}, []string{"EVAL", redsyncDelete, "1", "lock", "u1:1"}},
		{[][]string{owned}, []string{"EVAL", redsyncTouch, "1", "lock", "u1:1", "30000"}},
		{nil, []string{"EVAL", redsyncTouchWithSetNX, "1", "lock", "u1:1", "30000"}},
		{nil, []string{"EVAL", springObtain, "1", "lock", "u1:1", "30000"}},
		{[][]string{owned}, []string{"EVAL", springUnlinkUnlock, "1", "lock", "u1:1"}},
		{[][]string{owned}, []string{"EVAL", springDeleteUnlock, "1", "lock", "u1:1"}},
		{[][]string{{"SET", "data:fence", "4"}}, []string{"EVAL", fencedWrite, "2", "data", "data:fence", "5", "v"}},
		{[][]string{{"SET", "lock", "tok1old"}}, obtain},
		{[][]string{obtain}, []string{"EVAL", redislockRelease, "1", "lock", "tok1meta"}},
		{[][]string{obtain}, []string{"EVAL", redislockRefresh, "1", "lock", "tok1meta", "30000"}},
		{[][]string{owned}, []string{"EVAL", setnxRefresh, "1", "lock", "u1:1", "30000"}},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		vm, fast := newConfNode(t, nil, nil), newConfNode(t, all, nil)
		for _, cmd := range append(c.setup, c.call) {
			if a, b := vm.do(cmd), fast.do(cmd); a != b {
				t.Fatalf("%.40q: script %q, fast path %q", cmd, a, b)
			}
		}
		if !fast.answered || len(fast.nested) == 0 {
			t.Errorf("the fast path of %.60q did not answer a writing run itself", c.call[1])
		}
		covered[c.call[1]] = true
	}
	for _, s := range all {
		if !covered[s.Source] {
			t.Errorf("no case for the fast path of %.60q", s.Source)
		}
	}
}
