package luafast

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
)

// node is one in-process miniredis, driven like the simulator drives it.
type node struct {
	m        *miniredis.Miniredis
	eng      *Engine // nil: miniredis's own scripting
	peer     *server.Peer
	buf      bytes.Buffer
	w        *bufio.Writer
	publish  []string // PUBLISH commands seen by the pre-hook
	hookSeen int      // commands seen by the pre-hook
	now      time.Time
	probe    *server.Peer // lru's connection, which the pre-hooks let through
	probeBuf bytes.Buffer
}

// testEpoch is a node's clock at start. The clock stands still but for
// fastForward, as the simulator's node clocks do, so that the keys' LRU
// clocks (OBJECT IDLETIME) of two nodes compare.
var testEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// testTB is what newNode needs from *testing.T, *testing.B and *rapid.T.
type testTB interface {
	Helper()
	Fatal(args ...any)
	Cleanup(func())
}

func newNode(tb testTB, withEngine bool) *node {
	tb.Helper()
	m := miniredis.NewMiniRedis()
	c, err := m.Dial()
	if err != nil {
		tb.Fatal(err)
	}
	c.Close()
	n := &node{m: m, now: testEpoch}
	m.SetTime(n.now)
	n.w = bufio.NewWriter(&n.buf)
	n.peer = server.NewPeer(n.w)
	n.probe = server.NewPeer(bufio.NewWriter(&n.probeBuf))
	if withEngine {
		n.eng = New(m, &testCache)
		n.eng.SetScripts(testScripts)
	}
	hook := func(c *server.Peer, cmd string, args ...string) bool {
		if c == n.probe {
			return false
		}
		n.hookSeen++
		if cmd == "PUBLISH" {
			n.publish = append(n.publish, strings.Join(args, " "))
		}
		if n.eng != nil {
			return n.eng.Handle(c, cmd, args)
		}
		return false
	}
	if n.eng != nil {
		n.eng.SetPreHook(hook)
	} else {
		m.Server().SetPreHook(hook)
	}
	tb.Cleanup(m.Close)
	return n
}

// do runs one command and returns the raw RESP reply.
func (n *node) do(args ...string) string {
	n.buf.Reset()
	n.m.Server().Dispatch(n.peer, args)
	n.peer.Flush()
	return n.buf.String()
}

// state describes all keys, values and TTLs of DBs 0 and 1.
func (n *node) state() string {
	var b strings.Builder
	b.WriteString(n.m.Dump())
	b.WriteString(n.lru())
	for _, i := range []int{0, 1} {
		db := n.m.DB(i)
		keys := db.Keys()
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "db%d %q %s ttl=%v", i, k, db.Type(k), db.TTL(k))
			if i == 1 && db.Type(k) == "string" {
				v, _ := db.Get(k)
				fmt.Fprintf(&b, " %q", v)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// lru lists the keys of DBs 0 and 1 with their OBJECT IDLETIME.
func (n *node) lru() string {
	var b strings.Builder
	for _, i := range []int{0, 1} {
		n.probeDo("SELECT", strconv.Itoa(i))
		keys := n.m.DB(i).Keys()
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "db%d %q idle %q\n", i, k, n.probeDo("OBJECT", "IDLETIME", k))
		}
	}
	n.probeDo("SELECT", "0")
	return b.String()
}

// probeDo runs one command on the probe connection.
func (n *node) probeDo(args ...string) string {
	n.probeBuf.Reset()
	n.m.Server().Dispatch(n.probe, args)
	n.probe.Flush()
	return n.probeBuf.String()
}

// fastForward moves the node's clock and its keys' TTLs by d.
func (n *node) fastForward(d time.Duration) {
	n.m.FastForward(d)
	n.now = n.now.Add(d)
	n.m.SetTime(n.now)
}

// testCache is the tests' engines' shared cache, as a pool's runs share
// one: compiled scripts and Lua states go from test to test.
var testCache Cache
