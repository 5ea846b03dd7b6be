package sim

import (
	"bufio"
	"bytes"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"

	"github.com/locksim/locksim/sim/luafast"
	"github.com/locksim/locksim/sim/trace"
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
	store   *store // the miniredis and its writers, from the run's pool
	m       *miniredis.Miniredis
	db      *miniredis.RedisDB // m's database 0, read directly (one lock a read, not two)
	swapped bool               // a SWAPDB may have replaced db
	srv     *server.Server
	out     bytes.Buffer
	bw      *bufio.Writer
	peers   map[int]*server.Peer
	last    time.Duration // node clock at the last advance
	tickGen uint64
	tick    tickState
	tickAt  time.Duration // node-clock time of the pending tick (tick == tickPending)
	subs    map[string][]*Subscription
	tx      map[*server.Peer]*txState // the connections in MULTI
	cmds    commandCache
	before  []stored // storedAt's buffer
	vals    []string // the hash values in before (and keyChange's)
	snap    snapshot // a script's keys, read before its first write
	seeded  bool     // miniredis's random source seeded for this run
	down    bool
	downBy  int // the scheduled fault that crashed the node (0: none)

	role        nodeRole
	links       []*replLink // master: one per replica
	offset      int64       // master: effects produced; replica: effects applied
	waiters     []*waiter   // WAIT commands in progress
	lua         *luafast.Engine
	value       luafast.Value // a native twin's reply to the command being dispatched
	scripts     *scriptSync
	Persistence string     // none, everysec, always
	fsynced     []keyState // everysec: the dataset as of the last fsync
}

type nodeRole int

// tickState says what a node knows of its earliest expiry. Node-clock
// times can be zero or negative after a backward clock jump, so no time
// value can stand for "unknown" or "none".
type tickState int8

const (
	tickUnknown tickState = iota // no tick computed yet: scan on advance
	tickNone                     // no key has a TTL
	tickPending                  // tickAt bounds the earliest expiry
)

const (
	roleMaster nodeRole = iota
	roleReplica
)

// AddNode adds a Redis node.
func (w *World) AddNode(name string) *Node {
	st := w.cfg.Pool.newStore()
	m := st.m
	m.SetTime(epoch)
	n := &Node{w: w, Name: name, store: st, m: m, srv: m.Server(), peers: map[int]*server.Peer{},
		subs: map[string][]*Subscription{}}
	n.db = m.DB(0)
	n.bw = st.node
	n.bw.Reset(&n.out)
	n.lua = luafast.New(m, w.lua)
	n.lua.SetScripts(w.cfg.Scripts)
	n.scripts = newScriptSync(st.scripts)
	n.lua.SetPreHook(n.preHook)   // the server's, which the twins' direct commands call too
	n.lua.SetPublish(n.publish)   // what preHook does for a PUBLISH outside MULTI
	n.lua.SetOnUnfinished(w.Fail) // a script that does not finish fails the run (luafast/runaway.go)
	w.nodes[name] = n
	w.nodeOrder = nil
	return n
}

// seedRandom seeds miniredis's random source from the run's seed before
// the run's first command that draws from it (from a client, inside MULTI
// or from a script: each passes the pre-hook). Seeding costs more than
// many commands, and most runs draw nothing; a store reused from an
// earlier run draws only after this.
func (n *Node) seedRandom() {
	if !n.seeded {
		n.m.Seed(int(n.w.cfg.Seed & 0x7fffffff))
		n.seeded = true
	}
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

// replier takes a command's reply: an attempt sends it back to its
// thread (no closure a command), other callers pass a replyFunc.
type replier interface{ answer(Reply) }

type replyFunc func(Reply)

func (f replyFunc) answer(r Reply) { f(r) }

// execConn runs one command on connection conn for client and returns its
// immediate reply.
func (n *Node) execConn(conn int, client string, args []string) Reply {
	var out Reply
	n.execAsync(conn, client, args, replyFunc(func(r Reply) { out = r }))
	return out
}

func (n *Node) execAsync(conn int, client string, args []string, reply replier) {
	n.advance()
	p := n.peer(conn)
	cmd := strings.ToUpper(args[0])
	info := n.cmds.lookup(cmd)
	touched := n.touchedKeys(p, info, cmd, args)
	write := info.flags&cmdWrite != 0
	var before []stored
	deferred := write && info.flags&cmdScript != 0 && n.tx[p] == nil
	switch {
	case deferred: // read at the script's first write, if any (preHook)
		n.snap = snapshot{keys: touched, pending: true}
	case write: // a read cannot create, delete or overwrite a key
		before = n.storedAt(touched)
	}
	replicating := n.role == roleMaster && len(n.links) > 0 && write
	var shipped []keyState
	if replicating {
		for _, k := range touched {
			shipped = append(shipped, n.capture(k))
		}
	}
	var r Reply
	wait := false
	switch {
	case n.role == roleReplica && write:
		r = Reply{Kind: '-', Str: "READONLY You can't write against a read only replica."}
	case cmd == "WAIT" && n.tx[p] == nil:
		r, wait = n.wait(args, reply)
	case cmd == "INFO" && n.tx[p] == nil && infoReplication(args):
		r = n.infoReplication()
	default:
		r = n.dispatch(p, info, cmd, args)
	}
	if t := n.tx[p]; t != nil && r.Kind == '+' && r.Str == "QUEUED" {
		t.n++
	}
	n.w.rec.trace.Stats.RedisCommands++
	key, change := info.subject(args), ""
	if deferred {
		before = n.snap.taken
		n.snap = snapshot{}
	}
	if write && (!deferred || before != nil) {
		if k, c := n.keyChange(touched, before); c != "" {
			key, change = k, c
		}
	}
	e := trace.Command(n.Name, client, key, n.w.traceArgs(args, info.flags&cmdScriptBody != 0), n.w.alloc.replyText(r), change)
	if wait {
		e.Reply = "(waiting for replicas)"
	}
	n.w.rec.event(e)
	if write {
		n.noteTTLs(touched)
	}
	if replicating {
		for i, k := range touched {
			if after := n.capture(k); !after.equal(shipped[i]) {
				n.ship(after)
			}
		}
	}
	if !wait {
		reply.answer(r)
	}
}

// dispatch hands one command to miniredis and parses its reply.
func (n *Node) dispatch(p *server.Peer, info commandInfo, cmd string, args []string) Reply {
	n.out.Reset()
	tx := n.tx[p]
	switch cmd {
	case "MULTI":
		if n.tx == nil { // made on the node's first MULTI: most runs send none
			n.tx = map[*server.Peer]*txState{}
		}
		if tx == nil { // a nested MULTI is refused and changes nothing
			n.tx[p] = &txState{}
		}
	case "EXEC", "DISCARD":
		n.scripts.sync(n)
		delete(n.tx, p)
	}
	v := &n.value
	v.Kind = 0
	if info.flags&cmdScript != 0 && n.tx[p] == nil {
		// Dispatch would hand it to the pre-hook, whose scriptCommand
		// serves every script command outside MULTI.
		n.scriptCommand(p, info, cmd, args[1:], v)
	} else {
		n.srv.Dispatch(p, args)
	}
	if n.swapped || cmd == "EXEC" { // the pre-hook saw SWAPDB, or one ran queued
		n.db, n.swapped = n.m.DB(0), false
	}
	if v.Kind != 0 {
		return valueReply(*v)
	}
	p.Flush()
	r, err := ParseReply(n.out.Bytes())
	if err != nil {
		r = Reply{Kind: '-', Str: "ERR locksim: unparseable reply from miniredis"}
	}
	if cmd == "EXEC" && tx != nil && r.Kind == '*' {
		n.afterExec(tx)
		// PUBLISHes queued in MULTI go out through the sim at EXEC, their
		// receiver counts in their slots of the reply.
		for _, q := range tx.pubs {
			if q.slot < len(r.Array) {
				r.Array[q.slot] = Reply{Kind: ':', Int: int64(n.publish(q.channel, q.msg))}
			}
		}
	}
	return r
}

// txState is a connection's transaction, from MULTI to EXEC or DISCARD.
type txState struct {
	keys   []string    // the keys its queued commands may change
	n      int         // commands queued so far
	pubs   []queuedPub // the PUBLISHes among them
	bodies []string    // the script bodies among them, for the engine after EXEC
	flush  bool        // a SCRIPT FLUSH among them
}

// queuedPub is a PUBLISH queued in MULTI: its slot in EXEC's reply.
type queuedPub struct {
	slot         int
	channel, msg string
}

// touchedKeys lists the keys a command may change; inside MULTI it
// remembers them for EXEC. Transaction control changes no key itself.
func (n *Node) touchedKeys(p *server.Peer, info commandInfo, cmd string, args []string) []string {
	t := n.tx[p]
	switch {
	case cmd == "EXEC" && t != nil:
		return t.keys
	case info.flags&cmdTx != 0:
		return nil
	case t != nil:
		t.keys = append(t.keys, info.keys(args)...)
		return nil
	}
	return info.keys(args)
}

// advance brings miniredis to the node clock's current reading and
// records the keys that expired on the way.
func (n *Node) advance() { n.advanceBy(0) }

// advanceBy is advance whose expiries the scheduled fault id caused.
func (n *Node) advanceBy(fault int) {
	now := n.Clock.Read(n.w.now)
	d := now - n.last
	if d == 0 {
		return
	}
	var expiring []string
	// tickAt bounds the earliest expiry: below it, nothing can expire and
	// the keys need no scan.
	if d > 0 && n.tick != tickNone && (n.tick == tickUnknown || now >= n.tickAt) {
		for _, k := range n.db.Keys() {
			if ttl := n.db.TTL(k); ttl > 0 && ttl <= d {
				expiring = append(expiring, k)
			}
		}
	}
	n.m.FastForward(d)
	n.m.SetTime(epoch.Add(now))
	n.last = now
	for _, k := range expiring {
		if !n.db.Exists(k) {
			// Recorded even while the node is down: the key's lease ended
			// then, whatever the restart brings back.
			n.w.rec.event(trace.Expire(n.Name, k).WithFault(fault))
			if n.role == roleMaster && len(n.links) > 0 {
				n.ship(keyState{Key: k, Gone: true})
			}
		}
	}
}

// scheduleTick wakes the node when its next key expires, so that expiry
// events land in the trace at their true time. It scans every key; after
// a command, noteTTLs looks at the command's keys only.
func (n *Node) scheduleTick() {
	var next time.Duration
	for _, k := range n.db.Keys() {
		if ttl := n.db.TTL(k); ttl > 0 && (next == 0 || ttl < next) {
			next = ttl
		}
	}
	n.tickGen++
	n.tick = tickNone
	if next > 0 {
		n.tickFor(n.last + next)
	}
}

// noteTTLs brings the tick forward when one of keys now expires before
// it. A tick that fires early (the key was renewed or deleted meanwhile)
// finds nothing to expire and rescans.
func (n *Node) noteTTLs(keys []string) {
	for _, k := range keys {
		if ttl := n.db.TTL(k); ttl > 0 {
			if exp := n.last + ttl; n.tick != tickPending || exp < n.tickAt {
				n.tickGen++
				n.tickFor(exp)
			}
		}
	}
}

// tickFor schedules the tick for node-clock time exp.
func (n *Node) tickFor(exp time.Duration) {
	gen := n.tickGen
	n.tick, n.tickAt = tickPending, exp
	// The tick must not land before the node's clock reaches the expiry:
	// one that finds the key still there would reschedule at once, forever.
	at := n.w.now + max(n.Clock.TrueSpan(exp-n.last), 1)
	for n.Clock.Read(at) < exp {
		at++
	}
	n.w.schedule(at, nil, func() {
		if gen != n.tickGen {
			return
		}
		n.advance()
		n.scheduleTick()
	})
}
