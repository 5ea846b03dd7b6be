package protocols

import (
	"slices"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/luafast"
)

// The newer Redisson line's scripts at 66863978b and the fenced lock's,
// verbatim, as redisson_latest.go and fenced.go send them, and their fast
// paths.
const (
	redissonLockLatest = "if ((redis.call('exists', KEYS[1]) == 0) " +
		"or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then " +
		"redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"return nil; " +
		"end; " +
		"return redis.call('pttl', KEYS[1]);"

	redissonUnlockLatest = "local val = redis.call('get', KEYS[3]); " +
		"if val ~= false then " +
		"return tonumber(val);" +
		"end; " +
		"if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then " +
		"return nil;" +
		"end; " +
		"local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); " +
		"if (counter > 0) then " +
		"redis.call('pexpire', KEYS[1], ARGV[2]); " +
		"redis.call('set', KEYS[3], 0, 'px', ARGV[5]); " +
		"return 0; " +
		"else " +
		"redis.call('del', KEYS[1]); " +
		"redis.call(ARGV[4], KEYS[2], ARGV[1]); " +
		"redis.call('set', KEYS[3], 1, 'px', ARGV[5]); " +
		"return 1; " +
		"end; "

	redissonRenewLatest = "local result = {} " +
		"for i = 1, #KEYS, 1 do " +
		"if (redis.call('hexists', KEYS[i], ARGV[i + 1]) == 1) then " +
		"redis.call('pexpire', KEYS[i], ARGV[1]); " +
		"table.insert(result, 1); " +
		"else " +
		"table.insert(result, 0); " +
		"end; " +
		"end; " +
		"return result;"

	redissonFencedLock = "if (redis.call('exists', KEYS[1]) == 0 " +
		"or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then " +
		"local token = redis.call('incr', KEYS[2]);" +
		"redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"return {-1, token}; " +
		"end; " +
		"return {redis.call('pttl', KEYS[1]), -1};"
)

// redissonLatestScripts are the newer line's scripts with their fast
// paths; fencedScripts add the fenced lock's and the fenced resource's.
var (
	redissonLatestScripts = []sim.Script{
		// The combined condition sends what 3.16's two branches send.
		luafast.NewScript(redissonLockLatest, lock316),
		luafast.NewScript(redissonUnlockLatest, unlockLatest),
		luafast.NewScript(redissonRenewLatest, renewLatest),
	}
	fencedScripts = append(slices.Clip(redissonLatestScripts),
		luafast.NewScript(redissonFencedLock, lockFenced),
		luafast.NewScript(fencedWrite, fencedSet))
)

func unlockLatest(x *luafast.ScriptRun) bool {
	if !x.Has(3, 5) {
		return false
	}
	key, channel, latch := x.Keys()[0], x.Keys()[1], x.Keys()[2]
	msg, lease, id, publish, latchTTL := x.Argv()[0], x.Argv()[1], x.Argv()[2], x.Argv()[3], x.Argv()[4]
	val, ok := x.Call("GET", latch)
	switch {
	case !ok:
		return false
	case val.Equals("0"):
		return x.ReturnInt(0)
	case val.Equals("1"):
		return x.ReturnInt(1)
	case !val.IsNil():
		return false // tonumber of other values
	}
	held, left, ok := unhold(x, key, id, lease)
	switch {
	case !ok:
		return false
	case !held:
		return x.ReturnNil()
	case left:
		_, ok = x.Call("SET", latch, "0", "px", latchTTL)
		return ok && x.ReturnInt(0)
	}
	if _, ok = x.Call("DEL", key); !ok {
		return false
	}
	if publish != "PUBLISH" && publish != "publish" {
		return false // the VM looks the command up
	}
	if _, ok = x.Call("PUBLISH", channel, msg); !ok {
		return false
	}
	_, ok = x.Call("SET", latch, "1", "px", latchTTL)
	return ok && x.ReturnInt(1)
}

func renewLatest(x *luafast.ScriptRun) bool {
	if len(x.Keys()) > 0 && !x.Has(0, len(x.Keys())+1) {
		return false
	}
	var buf [8]int
	res := buf[:0]
	for i, key := range x.Keys() {
		r, ok := x.Call("HEXISTS", key, x.Argv()[i+1])
		if !ok {
			return false
		}
		if !r.Is(1) {
			res = append(res, 0)
			continue
		}
		if _, ok = x.Call("PEXPIRE", key, x.Argv()[0]); !ok {
			return false
		}
		res = append(res, 1)
	}
	return x.ReturnInts(res...)
}

func lockFenced(x *luafast.ScriptRun) bool {
	if !x.Has(2, 2) {
		return false
	}
	key, counter, lease, id := x.Keys()[0], x.Keys()[1], x.Argv()[0], x.Argv()[1]
	r, ok := x.Call("EXISTS", key)
	if !ok {
		return false
	}
	if !r.Is(0) {
		if r, ok = x.Call("HEXISTS", key, id); !ok {
			return false
		}
		if !r.Is(1) {
			pttl, ok := x.Call("PTTL", key)
			return ok && pttl.IsInt() && x.ReturnInts(luafast.LuaInt(pttl.Int()), -1)
		}
	}
	token, ok := x.Call("INCR", counter)
	if !ok || !token.IsInt() {
		return false
	}
	return hold(x, "HINCRBY", key, lease, id) && x.ReturnInts(-1, luafast.LuaInt(token.Int()))
}
