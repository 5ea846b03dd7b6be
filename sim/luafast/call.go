package luafast

import (
	"bufio"
	"strings"

	"github.com/alicebob/miniredis/v2/server"
	lua "github.com/yuin/gopher-lua"
)

// innerConn is the reused connection for redis.call/pcall. miniredis uses a
// fresh peer per call sharing one connection context per script run; we
// reset the peer's public fields per call and replace the peer after a run
// that issued a command changing connection state (SELECT, HELLO, ...).
// The peer writes through the vm's reply buffer.
type innerConn struct {
	peer  *server.Peer
	dirty bool // peer must be replaced after the current run
}

func (ic *innerConn) reset(v *vm) {
	if v.replyW == nil {
		v.replyW = bufio.NewWriterSize(&v.reply, 4096)
	}
	ic.peer = server.NewPeer(v.replyW)
	ic.dirty = false
}

// redisFuncs returns the `redis` module functions (as in miniredis's mkLua).
func (v *vm) redisFuncs() map[string]lua.LGFunction {
	return map[string]lua.LGFunction{
		"call":  func(l *lua.LState) int { return v.e.luaCall(l, true) },
		"pcall": func(l *lua.LState) int { return v.e.luaCall(l, false) },
		"error_reply": func(l *lua.LState) int {
			msg, ok := l.Get(1).(lua.LString)
			if !ok {
				l.Error(lua.LString("wrong number or type of arguments"), 1)
				return 0
			}
			parts := strings.SplitN(string(msg), " ", 2)
			if parts[0] != "" && parts[0][0] == '-' {
				parts[0] = parts[0][1:]
			}
			final := "ERR " + parts[0]
			if len(parts) == 2 {
				final = parts[0] + " " + parts[1]
			}
			res := &lua.LTable{} // as miniredis (nil Metatable)
			res.RawSetString("err", lua.LString(final))
			l.Push(res)
			return 1
		},
		"log": func(l *lua.LState) int {
			l.CheckInt(1)
			l.CheckString(2)
			return 0
		},
		"status_reply": func(l *lua.LState) int {
			msg, ok := l.Get(1).(lua.LString)
			if !ok {
				l.Error(lua.LString("wrong number or type of arguments"), 1)
				return 0
			}
			l.Push(statusTable(string(msg)))
			return 1
		},
		"sha1hex": func(l *lua.LState) int {
			if l.GetTop() != 1 {
				l.Error(lua.LString("wrong number of arguments"), 1)
				return 0
			}
			l.Push(lua.LString(sha1Hex(lua.LVAsString(l.Get(1)))))
			return 1
		},
		"replicate_commands": func(l *lua.LState) int {
			l.Push(lua.LTrue)
			return 1
		},
		"set_repl": func(l *lua.LState) int {
			if l.GetTop() != 1 {
				l.Error(lua.LString("wrong number of arguments"), 1)
				return 0
			}
			return 1 // miniredis returns its argument
		},
		"setresp": func(l *lua.LState) int {
			var resp3 bool
			switch l.CheckInt(1) {
			case 2:
			case 3:
				resp3 = true
			default:
				l.Error(lua.LString("RESP version must be 2 or 3"), 1)
				return 0
			}
			// As miniredis: applies to the calling connection after EVAL.
			v.e.cur.SwitchResp3 = &resp3
			return 0
		},
	}
}

func statusTable(msg string) *lua.LTable {
	t := &lua.LTable{} // as miniredis (nil Metatable)
	t.RawSetString("ok", lua.LString(msg))
	return t
}

// luaCall implements redis.call (failFast) and redis.pcall.
func (e *Engine) luaCall(l *lua.LState, failFast bool) int {
	top := l.GetTop()
	if top == 0 {
		l.Error(lua.LString(msgNoArgs(e.curSHA)), 1)
		return 0
	}
	args, ok := e.vm.takeArgs(l, top)
	if !ok {
		l.Error(lua.LString(msgBadArgType(e.curSHA)), 1)
		return 0
	}
	defer e.vm.giveArgs(args)

	if e.readOnly && e.srv.IsRegisteredCommand(args[0]) && !e.srv.IsReadOnlyCommand(args[0]) {
		if failFast {
			l.Error(lua.LString(msgReadOnlyScript), 1)
			return 0
		}
		res := &lua.LTable{}
		res.RawSetString("err", lua.LString(msgReadOnlyScript))
		l.Push(res)
		return 1
	}

	v, errMsg, failed := e.dispatch(l, args)
	if failed {
		unknown := strings.Contains(errMsg, "ERR unknown command")
		if failFast {
			if unknown {
				errMsg = msgUnknownCmdCall(e.curSHA)
			}
			l.Error(lua.LString(errMsg), 1)
			return 0
		}
		if unknown {
			errMsg = msgUnknownCmdPcall
		}
		res := &lua.LTable{}
		res.RawSetString("err", lua.LString(errMsg))
		l.Push(res)
		return 1
	}
	l.Push(v)
	return 1
}

// dispatch runs one nested command through the server (so the pre-hook sees
// it) and converts its reply; failed is set for error replies.
func (e *Engine) dispatch(l *lua.LState, args []string) (lua.LValue, string, bool) {
	ic, vm := &e.inner, e.vm
	vm.reply.Reset()
	vm.replyW.Reset(&vm.reply) // drops what a panicking command left
	upper, class := vm.names.lookup(args[0])
	switch class {
	case cmdPlain:
	case cmdConn:
		ic.dirty = true
	default:
		return nil, e.scriptOnly(args, class), true
	}
	p := ic.peer
	p.Resp3, p.SwitchResp3, p.ClientName = false, nil, ""
	// Dispatch upper-cases the name itself (allocating for a lower-case
	// one); the original spelling only shows in the unknown-command error,
	// which redis.call/pcall replace anyway.
	args[0] = upper
	if vm.nat.replaying() {
		return parseReply(l, &vm.strs, vm.nat.replay(args))
	}
	e.srv.Dispatch(p, args)
	vm.replyW.Flush()
	return parseReply(l, &vm.strs, vm.reply.Bytes())
}

// scriptOnly is the error miniredis gives a command it refuses inside a
// script: it checks arity first, then rejects the nested context. Our
// inner peer is an ordinary connection, so they must not reach the server.
func (e *Engine) scriptOnly(args []string, class int) string {
	switch n := len(args) - 1; {
	case class == cmdAuth && n > 2:
		return msgSyntaxError
	case n < nestedMinArgs[class] || (class == cmdNoArgs && n > 0):
		return errWrongNumber(args[0])
	}
	return msgNotFromScripts(e.curSHA)
}

// Command classes for nested calls.
const (
	cmdPlain   = iota
	cmdNoArgs  // refused in scripts; arity exactly 0
	cmdOneArg  // refused in scripts; arity at least 1
	cmdTwoArgs // refused in scripts; arity at least 2
	cmdAnyArgs // refused in scripts; any arity
	cmdAuth    // refused in scripts; AUTH's own checks
	cmdConn    // allowed, but changes the connection context
)

// nestedMinArgs is the fewest arguments of a refused class.
var nestedMinArgs = [...]int{cmdOneArg: 1, cmdTwoArgs: 2, cmdAuth: 1, cmdConn: 0}

// nestedClass is the class of each command a script may not call as an
// ordinary one (miniredis v2.40.0's lua.go); any other is cmdPlain.
var nestedClass = map[string]int{
	"EXEC": cmdNoArgs, "MULTI": cmdNoArgs, "UNSUBSCRIBE": cmdAnyArgs, "PUNSUBSCRIBE": cmdAnyArgs, "AUTH": cmdAuth,
	"WATCH": cmdOneArg, "SCRIPT": cmdOneArg, "SUBSCRIBE": cmdOneArg, "PSUBSCRIBE": cmdOneArg,
	"EVAL": cmdTwoArgs, "EVALSHA": cmdTwoArgs, "EVAL_RO": cmdTwoArgs, "EVALSHA_RO": cmdTwoArgs,
	"QUIT": cmdConn, "HELLO": cmdConn, "RESET": cmdConn, "SELECT": cmdConn, "CLIENT": cmdConn,
}
