package protocols

import (
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/luafast"
)

// Redisson's lock scripts at 3.16.0 (RedissonLock.tryLockInnerAsync,
// unlockInnerAsync, renewExpirationAsync) and 3.12.0's lock script (HSET
// for a new hold), verbatim, as redisson.go sends them, and their fast
// paths.
const (
	redissonLock316 = "if (redis.call('exists', KEYS[1]) == 0) then " +
		"   redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"   redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"   return nil; " +
		"end; " +
		"if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then " +
		"   redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"   redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"   return nil; " +
		"end; " +
		"return redis.call('pttl', KEYS[1]);"

	redissonUnlock316 = "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then " +
		"   return nil;" +
		"end; " +
		"local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); " +
		"if (counter > 0) then " +
		"   redis.call('pexpire', KEYS[1], ARGV[2]); " +
		"   return 0; " +
		"else " +
		"   redis.call('del', KEYS[1]); " +
		"   redis.call('publish', KEYS[2], ARGV[1]); " +
		"   return 1; " +
		"end; " +
		"return nil;"

	redissonRenew316 = "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then " +
		"   redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"   return 1; " +
		"end; " +
		"return 0;"

	redissonLock312 = "if (redis.call('exists', KEYS[1]) == 0) then " +
		"redis.call('hset', KEYS[1], ARGV[2], 1); " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"return nil; " +
		"end; " +
		"if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then " +
		"redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"return nil; " +
		"end; " +
		"return redis.call('pttl', KEYS[1]);"
)

// redissonScripts are the scripts of the 3.12-3.17 releases with their
// fast paths.
var redissonScripts = []sim.Script{
	luafast.NewScript(redissonLock316, lock316),
	luafast.NewScript(redissonUnlock316, unlock316),
	luafast.NewScript(redissonRenew316, renew316),
	luafast.NewScript(redissonLock312, lock312),
}

// hold is the calls of a granted hold: add one to the holder's count (with
// the command cmd), then set the lease.
func hold(x *luafast.ScriptRun, cmd, key, lease, id string) bool {
	if _, ok := x.Call(cmd, key, id, "1"); !ok {
		return false
	}
	_, ok := x.Call("PEXPIRE", key, lease)
	return ok
}

// lock316 is redissonLock316's fast path; lock312 is redissonLock312's,
// which sets a new hold with HSET; lockWith's lockNew is the command of
// a new hold.
func lock316(x *luafast.ScriptRun) bool { return lockWith(x, "HINCRBY") }

func lock312(x *luafast.ScriptRun) bool { return lockWith(x, "HSET") }

func lockWith(x *luafast.ScriptRun, lockNew string) bool {
	if !x.Has(1, 2) {
		return false
	}
	key, lease, id := x.Keys()[0], x.Argv()[0], x.Argv()[1]
	r, ok := x.Call("EXISTS", key)
	if !ok {
		return false
	}
	if r.Is(0) {
		return hold(x, lockNew, key, lease, id) && x.ReturnNil()
	}
	if r, ok = x.Call("HEXISTS", key, id); !ok {
		return false
	}
	if r.Is(1) {
		return hold(x, "HINCRBY", key, lease, id) && x.ReturnNil()
	}
	return returnPTTL(x, key)
}

// returnPTTL is `return redis.call('pttl', key)`.
func returnPTTL(x *luafast.ScriptRun, key string) bool {
	r, ok := x.Call("PTTL", key)
	return ok && r.IsInt() && x.ReturnInt(luafast.LuaInt(r.Int()))
}

func unlock316(x *luafast.ScriptRun) bool {
	if !x.Has(2, 3) {
		return false
	}
	key, channel, msg, lease, id := x.Keys()[0], x.Keys()[1], x.Argv()[0], x.Argv()[1], x.Argv()[2]
	held, left, ok := unhold(x, key, id, lease)
	switch {
	case !ok:
		return false
	case !held:
		return x.ReturnNil()
	case left:
		return x.ReturnInt(0)
	}
	if _, ok = x.Call("DEL", key); !ok {
		return false
	}
	_, ok = x.Call("PUBLISH", channel, msg)
	return ok && x.ReturnInt(1)
}

// unhold is the unlock scripts' common part: if id holds key, one hold
// less, and the lease renewed while holds are left.
func unhold(x *luafast.ScriptRun, key, id, lease string) (held, left, ok bool) {
	r, ok := x.Call("HEXISTS", key, id)
	if !ok || r.Is(0) {
		return false, false, ok
	}
	counter, ok := x.Call("HINCRBY", key, id, "-1")
	if !ok || !counter.IsInt() {
		return true, false, false // Lua compares a non-number with 0: an error
	}
	if counter.Int() <= 0 {
		return true, false, true
	}
	_, ok = x.Call("PEXPIRE", key, lease)
	return true, true, ok
}

func renew316(x *luafast.ScriptRun) bool {
	if !x.Has(1, 2) {
		return false
	}
	key, lease, id := x.Keys()[0], x.Argv()[0], x.Argv()[1]
	r, ok := x.Call("HEXISTS", key, id)
	if !ok {
		return false
	}
	if !r.Is(1) {
		return x.ReturnInt(0)
	}
	_, ok = x.Call("PEXPIRE", key, lease)
	return ok && x.ReturnInt(1)
}
