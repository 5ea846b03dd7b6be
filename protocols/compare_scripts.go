package protocols

import (
	"slices"
	"strconv"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/luafast"
)

// The compare-and-act scripts of the other protocols, verbatim, as
// setnx.go, redlock.go, redlock_extend.go, spring_registry.go and
// fencing.go send them (each names its source there), and their fast
// paths.
const (
	compareAndDelete = "if redis.call('get', KEYS[1]) == ARGV[1] then " +
		"   return redis.call('del', KEYS[1]) " +
		"else " +
		"   return 0 " +
		"end"

	redsyncDelete = `
	local val = redis.call("GET", KEYS[1])
	if val == ARGV[1] then
		return redis.call("DEL", KEYS[1])
	elseif val == false then
		return -1
	else
		return 0
	end
`

	redsyncTouch = `
	if redis.call("GET", KEYS[1]) == ARGV[1] then
		return redis.call("PEXPIRE", KEYS[1], ARGV[2])
	else
		return 0
	end
`

	redsyncTouchWithSetNX = `
	if redis.call("GET", KEYS[1]) == ARGV[1] then
		return redis.call("PEXPIRE", KEYS[1], ARGV[2])
	elseif redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2], "NX") then
		return 1
	else
		return 0
	end
`

	springObtain = `local lockClientId = redis.call('GET', KEYS[1])
if lockClientId == ARGV[1] then
	redis.call('PEXPIRE', KEYS[1], ARGV[2])
	return true
elseif not lockClientId then
	redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
	return true
end
return false
`

	springUnlinkUnlock = `local lockClientId = redis.call('GET', KEYS[1])
if lockClientId == ARGV[1] then
	redis.call('UNLINK', KEYS[1])
	return true
end
return false
`

	springDeleteUnlock = `local lockClientId = redis.call('GET', KEYS[1])
if lockClientId == ARGV[1] then
	redis.call('DEL', KEYS[1])
	return true
end
return false
`

	fencedWrite = `local highest = tonumber(redis.call('get', KEYS[2]) or '0')
local token = tonumber(ARGV[1])
if token < highest then return 0 end
redis.call('set', KEYS[2], token)
redis.call('set', KEYS[1], ARGV[2])
return 1`
)

// The compare-and-act scripts' fast paths, for the protocols that send
// them.
var (
	compareAndDeleteScript = luafast.NewScript(compareAndDelete, func(x *luafast.ScriptRun) bool { return ifOwner(x, "DEL", nil) })
	redsyncScripts         = []sim.Script{
		luafast.NewScript(redsyncDelete, redsyncDel),
		luafast.NewScript(redsyncTouch, func(x *luafast.ScriptRun) bool { return ifOwner(x, "PEXPIRE", nil) }),
	}
	redsyncSetNXScripts = append(slices.Clip(redsyncScripts),
		luafast.NewScript(redsyncTouchWithSetNX, func(x *luafast.ScriptRun) bool { return ifOwner(x, "PEXPIRE", setNX) }))
	springScripts = []sim.Script{
		luafast.NewScript(springObtain, springObtainLock),
		luafast.NewScript(springUnlinkUnlock, func(x *luafast.ScriptRun) bool { return springRelease(x, "UNLINK") }),
		luafast.NewScript(springDeleteUnlock, func(x *luafast.ScriptRun) bool { return springRelease(x, "DEL") }),
	}
)

// ifOwner is `if GET KEYS[1] == ARGV[1] then return <cmd KEYS[1] ARGV[2]>`
// (ARGV[2] for PEXPIRE), else what otherwise returns (0 if nil).
func ifOwner(x *luafast.ScriptRun, cmd string, otherwise luafast.FastPath) bool {
	nArgv := 1
	if cmd == "PEXPIRE" {
		nArgv = 2
	}
	if !x.Has(1, nArgv) {
		return false
	}
	key := x.Keys()[0]
	r, ok := x.Call("GET", key)
	switch {
	case !ok:
		return false
	case !r.Equals(x.Argv()[0]):
		if otherwise != nil {
			return otherwise(x)
		}
		return x.ReturnInt(0)
	case cmd == "PEXPIRE":
		return x.ReturnCall(cmd, key, x.Argv()[1])
	}
	return x.ReturnCall(cmd, key)
}

// setNX is redsync's `elseif SET KEYS[1] ARGV[1] PX ARGV[2] NX then 1 else 0`.
func setNX(x *luafast.ScriptRun) bool {
	r, ok := x.Call("SET", x.Keys()[0], x.Argv()[0], "PX", x.Argv()[1], "NX")
	if !ok {
		return false
	}
	if r.IsNil() {
		return x.ReturnInt(0)
	}
	return x.ReturnInt(1)
}

func redsyncDel(x *luafast.ScriptRun) bool {
	if !x.Has(1, 1) {
		return false
	}
	r, ok := x.Call("GET", x.Keys()[0])
	switch {
	case !ok:
		return false
	case r.Equals(x.Argv()[0]):
		return x.ReturnCall("DEL", x.Keys()[0])
	case r.IsNil():
		return x.ReturnInt(-1)
	}
	return x.ReturnInt(0)
}

// springObtainLock returns true (1) when it renews or takes the lock,
// false (nil) when another client holds it.
func springObtainLock(x *luafast.ScriptRun) bool {
	if !x.Has(1, 2) {
		return false
	}
	key, id, lease := x.Keys()[0], x.Argv()[0], x.Argv()[1]
	r, ok := x.Call("GET", key)
	switch {
	case !ok:
		return false
	case r.Equals(id):
		_, ok = x.Call("PEXPIRE", key, lease)
	case r.IsNil():
		_, ok = x.Call("SET", key, id, "PX", lease)
	default:
		return x.ReturnNil()
	}
	return ok && x.ReturnInt(1)
}

func springRelease(x *luafast.ScriptRun, cmd string) bool {
	if !x.Has(1, 1) {
		return false
	}
	r, ok := x.Call("GET", x.Keys()[0])
	switch {
	case !ok:
		return false
	case !r.Equals(x.Argv()[0]):
		return x.ReturnNil()
	}
	_, ok = x.Call(cmd, x.Keys()[0])
	return ok && x.ReturnInt(1)
}

// fencedSet writes ARGV[2] to KEYS[1] unless the token ARGV[1] is below
// the highest in KEYS[2]. It models only tokens and highest values Lua's
// tonumber reads as the same integer and prints back as the same text.
func fencedSet(x *luafast.ScriptRun) bool {
	if !x.Has(2, 2) {
		return false
	}
	r, ok := x.Call("GET", x.Keys()[1])
	if !ok {
		return false
	}
	highest := 0
	switch {
	case r.IsBulk():
		if highest, ok = canonicalInt(r.Bulk()); !ok {
			return false
		}
	case !r.IsNil():
		return false
	}
	token, ok := canonicalInt(x.Argv()[0])
	if !ok {
		return false
	}
	if token < highest {
		return x.ReturnInt(0)
	}
	if _, ok = x.Call("SET", x.Keys()[1], x.Argv()[0]); !ok {
		return false
	}
	_, ok = x.Call("SET", x.Keys()[0], x.Argv()[1])
	return ok && x.ReturnInt(1)
}

// canonicalInt parses s if it is an integer as strconv prints it, with
// at most 15 digits (so a float64 holds it exactly).
func canonicalInt(s string) (int, bool) {
	if len(s) > 16 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || strconv.Itoa(n) != s || n > 999999999999999 || n < -999999999999999 {
		return 0, false
	}
	return n, true
}
