package luafast

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
)

// nativeOn runs the native twins of registered scripts (tests turn it off
// to compare with the Lua VM).
var nativeOn = true

// A twin is a Go function equal to one Lua script body. It sends the same
// redis.call commands, in the same order and with the same arguments, as
// the script would given the same replies, through nativeRun.call. It
// returns false to hand the run to the Lua VM at any point (an error reply,
// a reply it does not model, KEYS or ARGV shorter than the script reads):
// the VM then replays what the twin's calls got (see replay) and goes on
// live from there, so the run ends as if Lua had run it all.
type twin func(x *nativeRun) bool

// twins are the registered bodies, each with its twin and SHA1 (a twin's
// body is never compiled, so the compile cache would not have it).
var twins = map[string]registered{}

type registered struct {
	fn  twin
	sha string
}

func register(body string, t twin) {
	if _, dup := twins[body]; dup {
		panic("luafast: twin registered twice")
	}
	twins[body] = registered{t, sha1Hex(body)}
}

// NativeBodies returns the script bodies that run as native twins, sorted.
func NativeBodies() []string {
	out := make([]string, 0, len(twins))
	for b := range twins {
		out = append(out, b)
	}
	slices.Sort(out)
	return out
}

// nativeRun is the state of one twin's run and the record of its calls.
type nativeRun struct {
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
func (e *Engine) runNative(c *server.Peer, fn twin, sha string, args []string, numKeys int) bool {
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

// call sends one command as redis.call would (args[0] upper-case, a plain
// command) and returns its reply; ok is false if redis.call would raise or
// the reply is not one a twin models (then the twin must return false).
func (x *nativeRun) call(args ...string) (r reply, ok bool) {
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
		return reply{}, false
	}
	if how == directReply {
		x.got = append(strconv.AppendInt(append(x.got, ':'), int64(n), 10), '\r', '\n')
		x.gotEnd = append(x.gotEnd, len(x.got))
		return reply{kind: ':', n: n}, true
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
func (x *nativeRun) dispatch() (n int, how served, ok bool) {
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
func (x *nativeRun) replaying() bool { return x.left > 0 }

// replay gives the Lua run's next call (args, upper-cased name) the reply
// the twin's call got, or raises the panic it raised.
func (x *nativeRun) replay(args []string) []byte {
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
func (x *nativeRun) endReplay() {
	if x.left > 0 {
		x.left = 0
		panic(fmt.Sprintf("luafast: the script stopped after %d of its native twin's %d calls", x.next, len(x.sentEnd)))
	}
}

func (x *nativeRun) returnNil() bool { x.out.Kind = 'n'; return true }

func (x *nativeRun) returnInt(n int) bool { x.out.Kind, x.out.Int = ':', n; return true }

// returnStatus is `return redis.status_reply(s)`.
func (x *nativeRun) returnStatus(s string) bool { x.out.Kind, x.out.Status = '+', s; return true }

func (x *nativeRun) returnInts(ns ...int) bool {
	x.out.Kind, x.out.Ints = '*', append(x.out.Ints[:0], ns...)
	return true
}

// luaInt is what a script returns for an integer reply it got: Lua numbers
// are float64, and the reply is written as int(n).
func luaInt(n int) int { return int(float64(n)) }
