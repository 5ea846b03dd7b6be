// Package luafast is a fast EVAL/EVALSHA/SCRIPT implementation for a
// miniredis instance driven in-process by the simulator.
//
// miniredis builds a fresh gopher-lua state for every EVAL (~120 µs). The
// Engine keeps one state per miniredis instance, caches compiled scripts and
// converts redis.call replies straight from RESP into Lua values, while
// reproducing miniredis's replies byte for byte. Nested redis.call commands
// go through Server().Dispatch on one reused inner peer, so the server
// pre-hook sees them.
//
// Fast paths (fastpath.go): a body equal to a Script the engine was given
// (SetScripts) with a FastPath runs as that Go function, which hands the
// run to the VM on anything it does not model (see Script).
//
// Deliberate differences from miniredis v2.40.0:
//   - math.random/math.randomseed are Redis's deterministic rand48, reseeded
//     with 0 for every run (miniredis uses Go's global, unseeded generator).
//   - Returning a function/userdata/thread replies nil (miniredis panics).
//   - Library tables are shared between runs (see vm).
//   - A twin's direct commands (SetPreHook) are not counted by INFO, and
//     its PUBLISH, with SetPublish, reaches the publish function instead of
//     the pre-hook.
//
// Assumptions: the server's clock is set (SetTime) and stands still while
// a script runs (else the LRU clock a twin's direct HEXISTS leaves may be
// the nanoseconds the run took later), no AUTH configured, the calling
// peer is neither in MULTI nor in pub/sub mode, and scripts use DB 0 at
// start (miniredis would start them in the caller's selected DB). An
// Engine is not safe for concurrent use.
// The server's pre-hook may keep the argument strings of a nested command,
// never the slice: it is reused for the next redis.call.
package luafast

import (
	"fmt"
	"strings"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
	"github.com/yuin/gopher-lua/parse"
)

// Engine serves EVAL/EVALSHA/EVAL_RO/EVALSHA_RO/SCRIPT (LOAD|EXISTS|FLUSH)
// for one miniredis instance.
type Engine struct {
	m   *miniredis.Miniredis
	srv *server.Server

	vm      *vm  // pooled Lua state, created on first use
	touched bool // a script that may change tables ran on vm

	byText map[string]*script // compile cache, keyed by script body
	bySHA  map[string]*script // scripts visible to EVALSHA / SCRIPT EXISTS
	hot    [8]*script         // the first scripts of byText, scanned before it
	nHot   int

	inner innerConn // peer + buffer for nested redis.call

	cache   *Cache                        // compiled scripts and Lua states shared with other engines
	fast    []Script                      // scripts with fast paths (SetScripts)
	hook    server.Hook                   // the server's pre-hook, for direct commands
	publish func(channel, msg string) int // a twin's direct PUBLISH (SetPublish)
	value   *Value                        // where a twin's reply goes instead of the peer (HandleValue)

	onUnfinished func(error) // called when a script does not finish (SetOnUnfinished)

	// State of the running script (depth > 0 while a script runs).
	depth    int
	cur      *server.Peer // the peer that issued EVAL
	curSHA   string
	readOnly bool
}

// New returns an Engine for m that shares cache's compiled scripts and
// Lua states (nil: a cache of its own). The miniredis server must be
// started (e.g. via m.Dial) before the engine handles commands.
func New(m *miniredis.Miniredis, cache *Cache) *Engine {
	if cache == nil {
		cache = &Cache{}
	}
	return &Engine{
		m:      m,
		srv:    m.Server(),
		cache:  cache,
		byText: map[string]*script{},
		bySHA:  map[string]*script{},
	}
}

// Handle runs cmd (already upper-case) with args for peer c, writing the reply
// to c exactly as miniredis's own command would. It returns false if it does
// not handle cmd (the caller then dispatches normally). The caller must not
// call it for a peer inside MULTI. While a script runs, script commands are
// answered as nested calls ("not allowed from script"), whatever the peer.
func (e *Engine) Handle(c *server.Peer, cmd string, args []string) bool {
	if e.srv == nil {
		e.srv = e.m.Server()
	}
	switch cmd {
	case "EVAL", "EVAL_RO":
		e.cmdEval(c, cmd, cmd == "EVAL_RO", args)
	case "EVALSHA", "EVALSHA_RO":
		e.cmdEvalsha(c, cmd, cmd == "EVALSHA_RO", args)
	case "SCRIPT":
		e.cmdScript(c, cmd, args)
	default:
		return false
	}
	// Dispatch skips this step when a pre-hook handled the command.
	if c.SwitchResp3 != nil {
		c.Resp3 = *c.SwitchResp3
		c.SwitchResp3 = nil
	}
	return true
}

// nestedError writes the reply miniredis gives to a script command issued
// from inside a script, and reports whether it did.
func (e *Engine) nestedError(c *server.Peer) bool {
	if e.depth == 0 {
		return false
	}
	c.WriteError(msgNotFromScripts(e.curSHA))
	return true
}

func (e *Engine) cmdEval(c *server.Peer, cmd string, readOnly bool, args []string) {
	if len(args) < 2 {
		c.WriteError(errWrongNumber(cmd))
		return
	}
	if e.nestedError(c) {
		return
	}
	s := e.script(args[0])
	if e.run(c, s, s.sha, readOnly, args[1:]) {
		e.expose(s)
	}
}

// script returns the engine's script for body src. A protocol sends a few
// bodies, each from one constant string: comparing with the hot ones is a
// pointer comparison, where the map would hash the whole body.
func (e *Engine) script(src string) *script {
	for _, s := range e.hot[:e.nHot] {
		if s.src == src {
			return s
		}
	}
	s := e.byText[src]
	if s == nil {
		s = e.newScript(src)
		e.byText[src] = s
		if e.nHot < len(e.hot) {
			e.hot[e.nHot] = s
			e.nHot++
		}
	}
	return s
}

// expose makes s visible to EVALSHA and SCRIPT EXISTS.
func (e *Engine) expose(s *script) {
	if !s.exposed {
		e.bySHA[s.sha] = s
		s.exposed = true
	}
}

func (e *Engine) cmdEvalsha(c *server.Peer, cmd string, readOnly bool, args []string) {
	if len(args) < 2 {
		c.WriteError(errWrongNumber(cmd))
		return
	}
	if e.nestedError(c) {
		return
	}
	s := e.bySHA[args[0]]
	if s == nil {
		c.WriteError(msgNoScriptFound)
		return
	}
	e.run(c, s, args[0], readOnly, args[1:])
}

func (e *Engine) cmdScript(c *server.Peer, cmd string, args []string) {
	if len(args) < 1 {
		c.WriteError(errWrongNumber(cmd))
		return
	}
	if e.nestedError(c) {
		return
	}
	sub, args := args[0], args[1:]
	switch strings.ToLower(sub) {
	case "load":
		if len(args) != 1 {
			c.WriteError(fmt.Sprintf(msgFScriptUsage, "LOAD"))
			return
		}
		src := args[0]
		// miniredis only parses here; compile errors surface at EVALSHA.
		if _, err := parse.Parse(strings.NewReader(src), "user_script"); err != nil {
			c.WriteError(errLuaParseError(err))
			return
		}
		s := e.script(src)
		e.expose(s)
		c.WriteBulk(s.sha)
	case "exists":
		if len(args) == 0 {
			c.WriteError(errWrongNumber("script|exists"))
			return
		}
		c.WriteLen(len(args))
		for _, sha := range args {
			if _, ok := e.bySHA[sha]; ok {
				c.WriteInt(1)
			} else {
				c.WriteInt(0)
			}
		}
	case "flush":
		if len(args) == 1 {
			switch strings.ToUpper(args[0]) {
			case "SYNC", "ASYNC":
				args = args[1:]
			}
		}
		if len(args) != 0 {
			c.WriteError(msgScriptFlush)
			return
		}
		for _, s := range e.bySHA {
			s.exposed = false
		}
		e.bySHA = map[string]*script{}
		c.WriteOK()
	default:
		c.WriteError(fmt.Sprintf(msgFScriptUsageSimple, strings.ToUpper(sub)))
	}
}

// Exposed is SCRIPT EXISTS sha's answer for sha alone: whether EVALSHA
// finds it; false while a script runs, which may not send SCRIPT.
func (e *Engine) Exposed(sha string) bool {
	_, ok := e.bySHA[sha]
	return ok && e.depth == 0
}

// Close gives the engine's Lua state back for reuse by another engine. The
// engine must not run scripts afterwards.
func (e *Engine) Close() {
	if e.vm != nil && e.depth == 0 {
		putVM(e.cache, e.vm, e.touched)
		e.vm, e.touched = nil, false
	}
}
