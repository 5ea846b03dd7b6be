package luafast

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"

	luajson "github.com/alicebob/miniredis/v2/gopher-json"
	lua "github.com/yuin/gopher-lua"
)

// vm is the pooled Lua state of an Engine, set up like miniredis's
// per-call state (same libraries, globals and global protection).
//
// Isolation between runs: KEYS/ARGV are refilled (and replaced if a script
// left extra entries or a metatable in them); scripts that may modify the
// globals table (see isPure) get it, its metatable and L.Env restored after
// the run. Library tables (string, math, redis, ...) are shared: a script
// that modifies them changes them for later runs (miniredis starts afresh
// each time; Redis 7 makes them read-only).
type vm struct {
	L       *lua.LState
	g       *lua.LTable               // the globals table (_G)
	gmt     *lua.LTable               // _G's metatable from protectGlobals
	gSnap   map[lua.LValue]lua.LValue // raw contents of g after setup
	gmtSnap map[lua.LValue]lua.LValue // snapshot of gmt's fields

	keys, argv argTable
	rng        rand48
	args       []string // reused arguments of redis.call (see takeArgs)
	argsFilled bool     // KEYS and ARGV hold exactly what fill put there
	strs       strCache // boxed KEYS/ARGV values and bulk replies
	names      nameCache
	reply      bytes.Buffer  // nested calls' replies
	replyW     *bufio.Writer // writes to reply
	nat        ScriptRun     // the native twins' calls (native.go)
	budget     stepBudget    // instructions the running script has left (runaway.go)

	e       *Engine                                   // the engine using this state
	libSnap map[*lua.LTable]map[lua.LValue]lua.LValue // library tables after setup
}

// getVM takes a Lua state that an engine of e's cache gave back (Close),
// so a new run does not build its state again, or builds one.
func getVM(e *Engine) *vm {
	if v, ok := e.cache.vms.Get().(*vm); ok {
		v.e = e
		return v
	}
	v := newVM()
	v.e = e
	return v
}

// putVM gives v back to cache, only if its library tables are exactly as
// built: runs must share nothing observable.
func putVM(cache *Cache, v *vm, touched bool) {
	v.e = nil
	if !touched {
		cache.vms.Put(v)
		return
	}
	for t, snap := range v.libSnap {
		if !sameTable(t, snap) {
			return
		}
	}
	if !sameTable(v.g, v.gSnap) || !sameTable(v.gmt, v.gmtSnap) {
		return
	}
	cache.vms.Put(v)
}

func sameTable(t *lua.LTable, snap map[lua.LValue]lua.LValue) bool {
	n := 0
	same := true
	t.ForEach(func(k, val lua.LValue) {
		n++
		if snap[k] != val {
			same = false
		}
	})
	return same && n == len(snap)
}

// argTable is a reused KEYS or ARGV table.
type argTable struct {
	name string
	t    *lua.LTable
	n    int // entries set by the last fill
}

// protectGlobals is miniredis's script (cmd_scripting.go), verbatim: its line
// numbers show up in error messages and tracebacks.
const protectGlobals = `
local dbg=debug
local mt = {}
setmetatable(_G, mt)
mt.__newindex = function (t, n, v)
  if dbg.getinfo(2) then
    local w = dbg.getinfo(2, "S").what
    if w ~= "C" then
      error("Script attempted to create global variable '"..tostring(n).."'", 2)
    end
  end
  rawset(t, n, v)
end
mt.__index = function (t, n)
  if dbg.getinfo(2) and dbg.getinfo(2, "S").what ~= "C" then
    error("Script attempted to access nonexistent global variable '"..tostring(n).."'", 2)
  end
  return rawget(t, n)
end
debug = nil

`

func newVM() *vm {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	openLibs(L)
	v := &vm{L: L, g: L.G.Global}
	v.keys = argTable{name: "KEYS", t: L.CreateTable(4, 0)}
	v.argv = argTable{name: "ARGV", t: L.CreateTable(4, 0)}
	L.SetGlobal("KEYS", v.keys.t)
	L.SetGlobal("ARGV", v.argv.t)
	v.openRedis()

	// Deterministic math.random (see rand48.go).
	math := L.GetGlobal("math").(*lua.LTable)
	math.RawSetString("random", L.NewFunction(v.rng.luaRandom))
	math.RawSetString("randomseed", L.NewFunction(v.rng.luaRandomseed))

	v.countCoroutines()
	v.protectGlobals()
	v.snapshot()
	return v
}

// openLibs opens the libraries miniredis's scripts see, cjson included.
func openLibs(L *lua.LState) {
	for _, lib := range []struct {
		n string
		f lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.CoroutineLibName, lua.OpenCoroutine},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.DebugLibName, lua.OpenDebug},
	} {
		if err := L.CallByParam(lua.P{Fn: L.NewFunction(lib.f), Protect: true}, lua.LString(lib.n)); err != nil {
			panic(err)
		}
	}
	luajson.Preload(L)
	if err := L.CallByParam(lua.P{Fn: L.GetGlobal("require"), NRet: 1, Protect: true}, lua.LString("json")); err != nil {
		panic(err)
	}
	L.SetGlobal("cjson", L.Get(-1))
	L.Pop(1)
	L.RegisterModule("os", map[string]lua.LGFunction{
		// miniredis's whole "os" library.
		"clock": func(l *lua.LState) int {
			l.Push(lua.LNumber(42))
			return 1
		},
	})
}

// openRedis installs the redis (and server) module, its functions in name
// order.
func (v *vm) openRedis() {
	L := v.L
	funcs := v.redisFuncs()
	names := make([]string, 0, len(funcs))
	for n := range funcs {
		names = append(names, n)
	}
	sort.Strings(names)
	redisMod := L.CreateTable(0, len(funcs)+4)
	for _, n := range names {
		redisMod.RawSetString(n, L.NewFunction(funcs[n]))
	}
	for i, n := range []string{"LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING"} {
		redisMod.RawSetString(n, lua.LNumber(i))
	}
	L.SetGlobal("redis", redisMod)
	L.SetGlobal("server", redisMod)
}

// protectGlobals runs the metatable that refuses global writes and reads
// of unknown globals, compiled like a script (same chunk names), so
// tracebacks through these metamethods read as in miniredis.
func (v *vm) protectGlobals() {
	prot := newScript(protectGlobals)
	if err := prot.compile(nil); err != nil {
		panic(fmt.Sprintf("luafast: protectGlobals: %v", err))
	}
	prot.fn.Env = v.g
	v.L.Push(prot.fn)
	if err := v.L.PCall(0, lua.MultRet, nil); err != nil {
		panic(fmt.Sprintf("luafast: protectGlobals: %v", err))
	}
	v.L.SetTop(0)
	v.gmt = v.g.Metatable.(*lua.LTable)
}

// snapshot records the globals and libraries as built, to tell later
// whether a script changed them.
func (v *vm) snapshot() {
	v.gSnap = tableSnapshot(v.g)
	v.gmtSnap = tableSnapshot(v.gmt)
	v.libSnap = map[*lua.LTable]map[lua.LValue]lua.LValue{}
	v.g.ForEach(func(_, val lua.LValue) {
		if t, ok := val.(*lua.LTable); ok && t != v.keys.t && t != v.argv.t {
			v.libSnap[t] = tableSnapshot(t)
		}
	})
}

func tableSnapshot(t *lua.LTable) map[lua.LValue]lua.LValue {
	s := map[lua.LValue]lua.LValue{}
	t.ForEach(func(k, v lua.LValue) { s[k] = v })
	return s
}

// restoreTable makes t's raw contents equal to snap again.
func restoreTable(t *lua.LTable, snap map[lua.LValue]lua.LValue) {
	var stale []lua.LValue
	t.ForEach(func(k, v lua.LValue) {
		if snap[k] != v {
			stale = append(stale, k)
		}
	})
	for _, k := range stale {
		if _, ok := snap[k]; !ok {
			t.RawSet(k, lua.LNil)
		}
	}
	for k, v := range snap {
		if t.RawGet(k) != v {
			t.RawSet(k, v)
		}
	}
}

// restoreGlobals undoes whatever an impure script did to the globals table,
// its metatable and the state's environment.
func (v *vm) restoreGlobals() {
	v.L.Env = v.g
	v.g.Metatable = v.gmt
	v.gmt.Metatable = lua.LNil
	restoreTable(v.gmt, v.gmtSnap)
	restoreTable(v.g, v.gSnap)
}

// fill sets a's table to the list vals, replacing the table if a script left
// anything else in it.
func (v *vm) fill(a *argTable, vals []string) {
	t := a.t
	if !v.argsFilled && (t.Metatable != lua.LNil || nextAfter(t, a.n) != lua.LNil) {
		t = v.L.CreateTable(len(vals), 0)
		a.t, a.n = t, 0
		v.g.RawSetString(a.name, t)
		v.gSnap[lua.LString(a.name)] = t
	}
	for i, s := range vals {
		// Keep the boxed value if the slot already holds this string.
		if old, ok := t.RawGetInt(i + 1).(lua.LString); !ok || string(old) != s {
			t.RawSetInt(i+1, v.strs.box(s))
		}
	}
	for i := len(vals) + 1; i <= a.n; i++ {
		t.RawSetInt(i, lua.LNil)
	}
	a.n = len(vals)
}

// nextAfter returns the first key of t after index n (n == 0: first key).
func nextAfter(t *lua.LTable, n int) lua.LValue {
	var k lua.LValue = lua.LNil
	if n > 0 {
		k = boxInt(n)
	}
	k, _ = t.Next(k)
	return k
}

// boxed holds pre-boxed small integers, to avoid an allocation per
// conversion to lua.LValue.
var boxed = func() (b [258]lua.LValue) {
	for i := range b {
		b[i] = lua.LNumber(i - 1)
	}
	return
}()

func boxInt(n int) lua.LValue {
	if n >= -1 && n <= 256 {
		return boxed[n+1]
	}
	return lua.LNumber(n)
}
