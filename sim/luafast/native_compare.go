package luafast

import "strconv"

// The compare-and-act scripts of the other protocols, as
// protocols/setnx.go, redlock.go, redlock_extend.go, spring_registry.go
// and fencing.go send them (each names its source there).
const (
	CompareAndDelete = "if redis.call('get', KEYS[1]) == ARGV[1] then " +
		"   return redis.call('del', KEYS[1]) " +
		"else " +
		"   return 0 " +
		"end"

	RedsyncDelete = `
	local val = redis.call("GET", KEYS[1])
	if val == ARGV[1] then
		return redis.call("DEL", KEYS[1])
	elseif val == false then
		return -1
	else
		return 0
	end
`

	RedsyncTouch = `
	if redis.call("GET", KEYS[1]) == ARGV[1] then
		return redis.call("PEXPIRE", KEYS[1], ARGV[2])
	else
		return 0
	end
`

	RedsyncTouchWithSetNX = `
	if redis.call("GET", KEYS[1]) == ARGV[1] then
		return redis.call("PEXPIRE", KEYS[1], ARGV[2])
	elseif redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2], "NX") then
		return 1
	else
		return 0
	end
`

	SpringObtain = `local lockClientId = redis.call('GET', KEYS[1])
if lockClientId == ARGV[1] then
	redis.call('PEXPIRE', KEYS[1], ARGV[2])
	return true
elseif not lockClientId then
	redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
	return true
end
return false
`

	SpringUnlinkUnlock = `local lockClientId = redis.call('GET', KEYS[1])
if lockClientId == ARGV[1] then
	redis.call('UNLINK', KEYS[1])
	return true
end
return false
`

	SpringDeleteUnlock = `local lockClientId = redis.call('GET', KEYS[1])
if lockClientId == ARGV[1] then
	redis.call('DEL', KEYS[1])
	return true
end
return false
`

	FencedWrite = `local highest = tonumber(redis.call('get', KEYS[2]) or '0')
local token = tonumber(ARGV[1])
if token < highest then return 0 end
redis.call('set', KEYS[2], token)
redis.call('set', KEYS[1], ARGV[2])
return 1`
)

func init() {
	register(CompareAndDelete, func(x *nativeRun) bool { return ifOwner(x, "DEL", nil) })
	register(RedsyncDelete, redsyncDel)
	register(RedsyncTouch, func(x *nativeRun) bool { return ifOwner(x, "PEXPIRE", nil) })
	register(RedsyncTouchWithSetNX, func(x *nativeRun) bool { return ifOwner(x, "PEXPIRE", setNX) })
	register(SpringObtain, springObtainLock)
	register(SpringUnlinkUnlock, func(x *nativeRun) bool { return springRelease(x, "UNLINK") })
	register(SpringDeleteUnlock, func(x *nativeRun) bool { return springRelease(x, "DEL") })
	register(FencedWrite, fencedSet)
}

// ifOwner is `if GET KEYS[1] == ARGV[1] then return <cmd KEYS[1] ARGV[2]>`
// (ARGV[2] for PEXPIRE), else what otherwise returns (0 if nil).
func ifOwner(x *nativeRun, cmd string, otherwise twin) bool {
	nArgv := 1
	if cmd == "PEXPIRE" {
		nArgv = 2
	}
	if !x.has(1, nArgv) {
		return false
	}
	key := x.keys[0]
	r, ok := x.call("GET", key)
	switch {
	case !ok:
		return false
	case !r.equals(x.argv[0]):
		if otherwise != nil {
			return otherwise(x)
		}
		return x.returnInt(0)
	case cmd == "PEXPIRE":
		return x.returnCall(cmd, key, x.argv[1])
	}
	return x.returnCall(cmd, key)
}

// returnCall is `return redis.call(...)` for an integer reply.
func (x *nativeRun) returnCall(args ...string) bool {
	r, ok := x.call(args...)
	return ok && r.kind == ':' && x.returnInt(luaInt(r.n))
}

// setNX is redsync's `elseif SET KEYS[1] ARGV[1] PX ARGV[2] NX then 1 else 0`.
func setNX(x *nativeRun) bool {
	r, ok := x.call("SET", x.keys[0], x.argv[0], "PX", x.argv[1], "NX")
	if !ok {
		return false
	}
	if r.isNil() {
		return x.returnInt(0)
	}
	return x.returnInt(1)
}

func redsyncDel(x *nativeRun) bool {
	if !x.has(1, 1) {
		return false
	}
	r, ok := x.call("GET", x.keys[0])
	switch {
	case !ok:
		return false
	case r.equals(x.argv[0]):
		return x.returnCall("DEL", x.keys[0])
	case r.isNil():
		return x.returnInt(-1)
	}
	return x.returnInt(0)
}

// springObtainLock returns true (1) when it renews or takes the lock,
// false (nil) when another client holds it.
func springObtainLock(x *nativeRun) bool {
	if !x.has(1, 2) {
		return false
	}
	key, id, lease := x.keys[0], x.argv[0], x.argv[1]
	r, ok := x.call("GET", key)
	switch {
	case !ok:
		return false
	case r.equals(id):
		_, ok = x.call("PEXPIRE", key, lease)
	case r.isNil():
		_, ok = x.call("SET", key, id, "PX", lease)
	default:
		return x.returnNil()
	}
	return ok && x.returnInt(1)
}

func springRelease(x *nativeRun, cmd string) bool {
	if !x.has(1, 1) {
		return false
	}
	r, ok := x.call("GET", x.keys[0])
	switch {
	case !ok:
		return false
	case !r.equals(x.argv[0]):
		return x.returnNil()
	}
	_, ok = x.call(cmd, x.keys[0])
	return ok && x.returnInt(1)
}

// fencedSet writes ARGV[2] to KEYS[1] unless the token ARGV[1] is below
// the highest in KEYS[2]. It models only tokens and highest values Lua's
// tonumber reads as the same integer and prints back as the same text.
func fencedSet(x *nativeRun) bool {
	if !x.has(2, 2) {
		return false
	}
	r, ok := x.call("GET", x.keys[1])
	if !ok {
		return false
	}
	highest := 0
	switch {
	case r.kind == '$':
		if highest, ok = canonicalInt(string(r.body)); !ok {
			return false
		}
	case !r.isNil():
		return false
	}
	token, ok := canonicalInt(x.argv[0])
	if !ok {
		return false
	}
	if token < highest {
		return x.returnInt(0)
	}
	if _, ok = x.call("SET", x.keys[1], x.argv[0]); !ok {
		return false
	}
	_, ok = x.call("SET", x.keys[0], x.argv[1])
	return ok && x.returnInt(1)
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
