package luafast

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
)

// Script is a Lua script body a client sends, with an optional FastPath:
// Go code equal to the body that the engine runs instead of the Lua VM.
// The simulator knows Redis, not the scripts: a protocol declares its
// scripts and their fast paths, and the simulator hands them to each
// node's engine (SetScripts). A script without a fast path, or sent to
// an engine that was not given it, runs on the VM with the same result.
//
// A FastPath sends the same redis.call commands, in the same order and
// with the same arguments, as the script would given the same replies,
// through ScriptRun.Call, and ends with one of ScriptRun's Return
// methods. It returns false to hand the run to the Lua VM at any point
// (an error reply, a reply it does not model, KEYS or ARGV shorter than
// the script reads): the VM then replays what the fast path's calls got
// and goes on live from there, so the run ends as if Lua had run it all.
// Each fast path must be proven equal to its script by a conformance
// test (see the protocols package's).
type Script struct {
	Source   string
	FastPath FastPath
	sha      string // Source's SHA1, when NewScript computed it
}

// A FastPath is Go code equal to one script body (see Script).
type FastPath func(x *ScriptRun) bool

// NewScript is Script{Source: source, FastPath: fast} with its SHA1
// computed once, so that no engine hashes the body again.
func NewScript(source string, fast FastPath) Script {
	return Script{Source: source, FastPath: fast, sha: sha1Hex(source)}
}

// SHA1 is the script's name for EVALSHA (lower-case hex).
func (s Script) SHA1() string {
	if s.sha != "" {
		return s.sha
	}
	return sha1Hex(s.Source)
}

// SetScripts gives the engine the scripts whose fast paths it runs; a
// body the engine has cached already keeps what it had.
func (e *Engine) SetScripts(scripts []Script) { e.fast = scripts }

// fastScript is the registered script whose Source is src, if any. A
// protocol sends each body from one constant string: the comparison of
// the same string is a pointer comparison.
func (e *Engine) fastScript(src string) (Script, bool) {
	for _, s := range e.fast {
		if s.Source == src && s.FastPath != nil {
			return s, true
		}
	}
	return Script{}, false
}

// ScriptRun is one run of a fast path: the script's KEYS and ARGV, the
// commands it sends and the reply it returns. The engine keeps the record
// of its calls, in case the run is handed to the VM.
type ScriptRun struct {
	e          *Engine
	keys, argv []string
	args       []string           // the current call's arguments
	db         *miniredis.RedisDB // miniredis's DB 0 (database), nil until looked up
	// lruKey is a key whose LRU clock this run's EXISTS set. miniredis
	// sets a key's clock only to the server's time, or drops it with the
	// key; time stands still while a script runs (the server's clock is
	// set: SetTime), so any later touch of the key in the run writes the
	// value it holds.
	lruKey string
	lruSet bool // lruKey is set

	// What the calls sent (argument lists back to back) and got (reply
	// bytes back to back); a call that panicked is last, with no reply.
	sent     []string
	sentEnd  []int
	got      []byte
	gotEnd   []int
	panicV   any
	panicked bool
	next     int // the recorded call a replaying Lua run takes next
	left     int // recorded calls the Lua run has not taken yet

	out Value // the twin's reply
}

// runNative runs s's twin for c (args = KEYS then ARGV, numKeys of them
// keys). If it returns false the caller must run s on the Lua VM, which
// replays the twin's calls first.
func (e *Engine) runNative(c *server.Peer, fn FastPath, sha string, args []string, numKeys int) bool {
	x := &e.state().nat
	x.e = e
	x.keys, x.argv = args[:numKeys], args[numKeys:]
	x.sent, x.sentEnd, x.got, x.gotEnd = x.sent[:0], x.sentEnd[:0], x.got[:0], x.gotEnd[:0]
	x.panicV, x.panicked, x.next = nil, false, 0
	x.out.Kind = 'n'

	e.depth++
	e.cur, e.curSHA, e.readOnly = c, sha, false
	ok := fn(x)
	e.depth--
	e.cur, e.curSHA = nil, ""
	x.e, x.keys, x.argv = nil, nil, nil // a pooled state must not keep the engine
	x.db, x.lruKey, x.lruSet = nil, "", false
	if !ok {
		x.next, x.left = 0, len(x.sentEnd)
		return false
	}
	if e.takeValue(c, x) {
		c.SwitchResp3 = nil
		return true
	}
	switch v := &x.out; v.Kind {
	case 'n':
		c.WriteNull()
	case ':':
		c.WriteInt(v.Int)
	case '*':
		c.WriteLen(len(v.Ints))
		for _, n := range v.Ints {
			c.WriteInt(n)
		}
	case '+':
		c.WriteInline(v.Status)
	}
	c.SwitchResp3 = nil // as run does after a script
	return true
}

// Keys is the script's KEYS.
func (x *ScriptRun) Keys() []string { return x.keys }

// Argv is the script's ARGV.
func (x *ScriptRun) Argv() []string { return x.argv }

// Has reports whether KEYS and ARGV reach nKeys and nArgv: a fast path
// hands shorter ones to Lua (redis.call raises on a nil argument).
func (x *ScriptRun) Has(nKeys, nArgv int) bool {
	return len(x.keys) >= nKeys && len(x.argv) >= nArgv
}

// Call sends one command as redis.call would (args[0] upper-case, a plain
// command) and returns its reply; ok is false if redis.call would raise or
// the reply is not one a fast path models (then the fast path must return
// false).
func (x *ScriptRun) Call(args ...string) (r CallReply, ok bool) {
	e := x.e
	x.args = append(x.args[:0], args...)
	x.sent = append(x.sent, args...)
	x.sentEnd = append(x.sentEnd, len(x.sent))
	v, p := e.vm, e.inner.peer
	v.reply.Reset()
	v.replyW.Reset(&v.reply)
	p.Resp3, p.SwitchResp3, p.ClientName = false, nil, ""
	n, how, ok := x.dispatch()
	if !ok {
		return CallReply{}, false
	}
	if how == directReply {
		x.got = append(strconv.AppendInt(append(x.got, ':'), int64(n), 10), '\r', '\n')
		x.gotEnd = append(x.gotEnd, len(x.got))
		return CallReply{kind: ':', n: n}, true
	}
	v.replyW.Flush()
	b := v.reply.Bytes()
	x.got = append(x.got, b...)
	x.gotEnd = append(x.gotEnd, len(x.got))
	r = parseSimple(b)
	return r, r.kind != 0
}

// dispatch runs x.args, directly or on the server; a panic is kept for
// the Lua run to raise again at the same call (PCall turns it into the
// script's error).
func (x *ScriptRun) dispatch() (n int, how served, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			x.panicV, x.panicked, ok = p, true, false
		}
	}()
	if n, how = x.e.runDirect(x); how == notDirect {
		x.e.srv.Dispatch(x.e.inner.peer, x.args)
	}
	return n, how, true
}

// replaying reports whether a Lua run has recorded calls left to take.
func (x *ScriptRun) replaying() bool { return x.left > 0 }

// replay gives the Lua run's next call (args, upper-cased name) the reply
// the twin's call got, or raises the panic it raised.
func (x *ScriptRun) replay(args []string) []byte {
	i := x.next
	from := 0
	if i > 0 {
		from = x.sentEnd[i-1]
	}
	if want := x.sent[from:x.sentEnd[i]]; !slices.Equal(want, args) {
		panic(fmt.Sprintf("luafast: native twin sent %q where the script sends %q", want, args))
	}
	x.next++
	x.left--
	if i == len(x.gotEnd) { // the call that panicked
		panic(x.panicV)
	}
	from = 0
	if i > 0 {
		from = x.gotEnd[i-1]
	}
	return x.got[from:x.gotEnd[i]]
}

// endReplay checks that the Lua run took every call the twin made.
func (x *ScriptRun) endReplay() {
	if x.left > 0 {
		x.left = 0
		panic(fmt.Sprintf("luafast: the script stopped after %d of its native twin's %d calls", x.next, len(x.sentEnd)))
	}
}

// ReturnNil is `return nil` (or false): a nil reply. Like every Return
// method it returns true, for `return x.ReturnNil()`.
func (x *ScriptRun) ReturnNil() bool { x.out.Kind = 'n'; return true }

// ReturnInt is `return n`.
func (x *ScriptRun) ReturnInt(n int) bool { x.out.Kind, x.out.Int = ':', n; return true }

// ReturnStatus is `return redis.status_reply(s)`.
func (x *ScriptRun) ReturnStatus(s string) bool { x.out.Kind, x.out.Status = '+', s; return true }

// ReturnInts is `return {n1, n2, ...}`.
func (x *ScriptRun) ReturnInts(ns ...int) bool {
	x.out.Kind, x.out.Ints = '*', append(x.out.Ints[:0], ns...)
	return true
}

// ReturnCall is `return redis.call(...)` for a command with an integer
// reply; false (hand over to Lua) for any other reply.
func (x *ScriptRun) ReturnCall(args ...string) bool {
	r, ok := x.Call(args...)
	return ok && r.kind == ':' && x.ReturnInt(LuaInt(r.n))
}

// LuaInt is what a script returns for an integer reply it got: Lua numbers
// are float64, and the reply is written as int(n).
func LuaInt(n int) int { return int(float64(n)) }
