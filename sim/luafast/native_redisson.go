package luafast

// Redisson 3.16's lock scripts, as protocols/redisson.go sends them (the
// release is named there).
const (
	RedissonLock316 = "if (redis.call('exists', KEYS[1]) == 0) then " +
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

	RedissonUnlock316 = "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then " +
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

	RedissonRenew316 = "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then " +
		"   redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"   return 1; " +
		"end; " +
		"return 0;"
)

func init() {
	register(RedissonLock316, lock316)
	register(RedissonUnlock316, unlock316)
	register(RedissonRenew316, renew316)
}

// has reports whether the script's KEYS and ARGV reach nKeys and nArgv:
// a twin hands shorter ones to Lua (redis.call raises on a nil argument).
func (x *nativeRun) has(nKeys, nArgv int) bool {
	return len(x.keys) >= nKeys && len(x.argv) >= nArgv
}

// hold is the calls of a granted hold: add one to the holder's count (with
// the command cmd), then set the lease.
func (x *nativeRun) hold(cmd, key, lease, id string) bool {
	if _, ok := x.call(cmd, key, id, "1"); !ok {
		return false
	}
	_, ok := x.call("PEXPIRE", key, lease)
	return ok
}

// lock316 is RedissonLock316; lockNew is the command of a new hold
// (HINCRBY, or HSET in 3.12).
func lock316(x *nativeRun) bool { return lockWith(x, "HINCRBY") }

func lockWith(x *nativeRun, lockNew string) bool {
	if !x.has(1, 2) {
		return false
	}
	key, lease, id := x.keys[0], x.argv[0], x.argv[1]
	r, ok := x.call("EXISTS", key)
	if !ok {
		return false
	}
	if r.is(0) {
		return x.hold(lockNew, key, lease, id) && x.returnNil()
	}
	if r, ok = x.call("HEXISTS", key, id); !ok {
		return false
	}
	if r.is(1) {
		return x.hold("HINCRBY", key, lease, id) && x.returnNil()
	}
	return x.returnPTTL(key)
}

// returnPTTL is `return redis.call('pttl', key)`.
func (x *nativeRun) returnPTTL(key string) bool {
	r, ok := x.call("PTTL", key)
	if !ok || r.kind != ':' {
		return false
	}
	return x.returnInt(luaInt(r.n))
}

func unlock316(x *nativeRun) bool {
	if !x.has(2, 3) {
		return false
	}
	key, channel, msg, lease, id := x.keys[0], x.keys[1], x.argv[0], x.argv[1], x.argv[2]
	held, left, ok := x.unhold(key, id, lease)
	switch {
	case !ok:
		return false
	case !held:
		return x.returnNil()
	case left:
		return x.returnInt(0)
	}
	if _, ok = x.call("DEL", key); !ok {
		return false
	}
	_, ok = x.call("PUBLISH", channel, msg)
	return ok && x.returnInt(1)
}

// unhold is the unlock scripts' common part: if id holds key, one hold
// less, and the lease renewed while holds are left.
func (x *nativeRun) unhold(key, id, lease string) (held, left, ok bool) {
	r, ok := x.call("HEXISTS", key, id)
	if !ok || r.is(0) {
		return false, false, ok
	}
	counter, ok := x.call("HINCRBY", key, id, "-1")
	if !ok || counter.kind != ':' {
		return true, false, false // Lua compares a non-number with 0: an error
	}
	if counter.n <= 0 {
		return true, false, true
	}
	_, ok = x.call("PEXPIRE", key, lease)
	return true, true, ok
}

func renew316(x *nativeRun) bool {
	if !x.has(1, 2) {
		return false
	}
	key, lease, id := x.keys[0], x.argv[0], x.argv[1]
	r, ok := x.call("HEXISTS", key, id)
	if !ok {
		return false
	}
	if !r.is(1) {
		return x.returnInt(0)
	}
	_, ok = x.call("PEXPIRE", key, lease)
	return ok && x.returnInt(1)
}
