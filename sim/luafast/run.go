package luafast

import (
	"strconv"

	"github.com/alicebob/miniredis/v2/server"
	lua "github.com/yuin/gopher-lua"
)

// run executes script s for EVAL/EVALSHA (args = numkeys, keys..., argv...)
// like miniredis's runLuaScript. It returns true if the script succeeded
// (EVAL then makes it visible to EVALSHA).
func (e *Engine) run(c *server.Peer, s *script, sha string, readOnly bool, args []string) bool {
	numKeys, err := strconv.Atoi(args[0])
	if err != nil {
		c.WriteError(msgInvalidInt)
		return false
	}
	args = args[1:]
	if numKeys < 0 {
		c.WriteError(msgNegativeKeysNumber)
		return false
	}
	if numKeys > len(args) {
		c.WriteError(msgInvalidKeysNumber)
		return false
	}
	if s.fast != nil && !readOnly && e.runNative(c, s.fast, sha, args, numKeys) {
		return true
	}
	if err := s.compile(e.cache); err != nil {
		c.WriteError(formatQuirk(errLuaParseError(err)))
		return false
	}

	v := e.state()
	L := v.L
	if !s.inert {
		e.touched = true
	}
	v.fill(&v.keys, args[:numKeys])
	v.fill(&v.argv, args[numKeys:])
	v.argsFilled = s.inert // an inert script cannot change them
	v.rng.seed(0)

	e.depth++
	e.cur, e.curSHA, e.readOnly = c, sha, readOnly
	defer e.finish(s)

	s.fn.Env = v.g
	oldResp := c.Resp3
	L.Push(s.fn)
	v.budget.left = MaxScriptSteps
	L.SetContext(&v.budget)
	err = L.PCall(0, lua.MultRet, nil)
	L.RemoveContext()
	if v.budget.left < 0 && e.onUnfinished != nil {
		e.onUnfinished(&UnfinishedError{Script: s.src})
	}
	v.nat.endReplay()
	if err != nil {
		c.WriteError(formatQuirk(errLuaParseError(err)))
		return false
	}
	writeReply(L, c, L.Get(1))
	c.Resp3 = oldResp
	c.SwitchResp3 = nil
	return true
}

// state returns the engine's Lua state, taking one from the pool first.
func (e *Engine) state() *vm {
	if e.vm == nil {
		e.vm = getVM(e)
		e.inner.reset(e.vm)
	}
	return e.vm
}

// finish resets per-run state; it also runs if writing the reply panics.
func (e *Engine) finish(s *script) {
	v := e.vm
	v.L.SetTop(0)
	if !s.pure {
		v.restoreGlobals()
	}
	if e.inner.dirty {
		e.inner.reset(e.vm)
	}
	e.depth--
	e.cur, e.curSHA, e.readOnly = nil, "", false
}
