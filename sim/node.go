package sim

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
)

// epoch is the wall-clock reading of every node clock at virtual time 0.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Node is one Redis server: a miniredis instance driven in-process, with
// its own clock. TTLs follow only that clock: before each command the node
// moves miniredis forward by the time its clock advanced.
//
// Expiry boundary: miniredis drops a key when its TTL reaches 0, real
// Redis one millisecond later. The sim keeps miniredis's rule; with
// nanosecond virtual time a command lands on the exact expiry instant
// only when scheduled there on purpose.
type Node struct {
	w       *World
	Name    string
	Clock   Clock
	m       *miniredis.Miniredis
	srv     *server.Server
	out     bytes.Buffer
	bw      *bufio.Writer
	peers   map[int]*server.Peer
	last    time.Duration // node clock at the last advance
	tickGen uint64
	subs    map[string][]*Subscription
	inMulti map[*server.Peer]bool
	down    bool
}

// AddNode adds a Redis node.
func (w *World) AddNode(name string) *Node {
	m := miniredis.NewMiniRedis()
	c, err := m.Dial() // starts the server without a listener
	if err != nil {
		panic(err) // a pipe never fails to open
	}
	c.Close()
	m.Seed(int(w.cfg.Seed & 0x7fffffff))
	m.SetTime(epoch)
	n := &Node{w: w, Name: name, m: m, srv: m.Server(), peers: map[int]*server.Peer{},
		subs: map[string][]*Subscription{}, inMulti: map[*server.Peer]bool{}}
	n.bw = bufio.NewWriter(&n.out)
	n.srv.SetPreHook(n.preHook)
	w.nodes[name] = n
	return n
}

// Node returns the node called name, or nil.
func (w *World) Node(name string) *Node { return w.nodes[name] }

// Miniredis exposes the node's store for inspection in tests.
func (n *Node) Miniredis() *miniredis.Miniredis { return n.m }

func (n *Node) peer(conn int) *server.Peer {
	p := n.peers[conn]
	if p == nil {
		p = server.NewPeer(n.bw)
		n.peers[conn] = p
	}
	return p
}

// exec runs one command from thread t on arrival at the node.
func (n *Node) exec(t *Thread, args []string) Reply {
	return n.execConn(t.id, t.Client(), args)
}

// execConn runs one command on connection conn for client.
func (n *Node) execConn(conn int, client string, args []string) Reply {
	n.advance()
	p := n.peer(conn)
	key := keyOf(args)
	existed := key != "" && n.m.Exists(key)
	n.out.Reset()
	switch strings.ToUpper(args[0]) {
	case "MULTI":
		n.inMulti[p] = true
	case "EXEC", "DISCARD":
		delete(n.inMulti, p)
	}
	n.srv.Dispatch(p, args)
	p.Flush()
	r, err := ParseReply(n.out.Bytes())
	if err != nil {
		r = Reply{Kind: '-', Str: "ERR locksim: unparseable reply from miniredis"}
	}
	n.w.rec.trace.Stats.RedisCommands++
	change := ""
	if key != "" {
		switch exists := n.m.Exists(key); {
		case exists && !existed:
			change = KeyCreated
		case !exists && existed:
			change = KeyDeleted
		}
	}
	n.w.rec.event(Event{Kind: EvCommand, Party: n.Name, Client: client, Key: key,
		Args: n.w.traceArgs(args), Reply: r.String(), Change: change})
	n.scheduleTick()
	return r
}

// advance brings miniredis to the node clock's current reading and
// records the keys that expired on the way.
func (n *Node) advance() {
	now := n.Clock.Read(n.w.now)
	d := now - n.last
	if d == 0 {
		return
	}
	var expiring []string
	if d > 0 {
		for _, k := range n.m.Keys() {
			if ttl := n.m.TTL(k); ttl > 0 && ttl <= d {
				expiring = append(expiring, k)
			}
		}
	}
	n.m.FastForward(d)
	n.m.SetTime(epoch.Add(now))
	n.last = now
	for _, k := range expiring {
		if !n.m.Exists(k) {
			n.w.rec.event(Event{Kind: EvExpire, Party: n.Name, Key: k, Change: KeyExpired})
		}
	}
}

// scheduleTick wakes the node when its next key expires, so that expiry
// events land in the trace at their true time.
func (n *Node) scheduleTick() {
	n.tickGen++
	gen := n.tickGen
	var next time.Duration
	for _, k := range n.m.Keys() {
		if ttl := n.m.TTL(k); ttl > 0 && (next == 0 || ttl < next) {
			next = ttl
		}
	}
	if next == 0 {
		return
	}
	n.w.schedule(n.w.now+n.Clock.TrueSpan(next), nil, func() {
		if gen != n.tickGen {
			return
		}
		n.advance()
		n.scheduleTick()
	})
}

// traceArgs shortens script bodies to their SHA1 and keeps the bodies in
// the trace's script table.
func (w *World) traceArgs(args []string) []string {
	out := append([]string(nil), args...)
	if len(out) > 1 && (strings.EqualFold(out[0], "EVAL") || strings.EqualFold(out[0], "EVAL_RO")) {
		sum := sha1.Sum([]byte(out[1]))
		sha := hex.EncodeToString(sum[:])
		w.rec.trace.Scripts[sha] = out[1]
		out[1] = "sha1:" + sha
	}
	return out
}

// keyOf names the first key a command touches, for the trace.
func keyOf(args []string) string {
	if len(args) < 2 {
		return ""
	}
	switch strings.ToUpper(args[0]) {
	case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO":
		if len(args) > 3 && args[2] != "0" {
			return args[3]
		}
		return ""
	case "MULTI", "EXEC", "DISCARD", "UNWATCH", "PING", "SCRIPT", "WAIT":
		return ""
	}
	return args[1]
}
