package luafast

// Redisson 3.12's lock script, the newer line's scripts and the fenced
// lock's, as protocols/redisson.go, redisson_latest.go and fenced.go send
// them (each names its release there).
const (
	RedissonLock312 = "if (redis.call('exists', KEYS[1]) == 0) then " +
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

	RedissonLockLatest = "if ((redis.call('exists', KEYS[1]) == 0) " +
		"or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then " +
		"redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"return nil; " +
		"end; " +
		"return redis.call('pttl', KEYS[1]);"

	RedissonUnlockLatest = "local val = redis.call('get', KEYS[3]); " +
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

	RedissonRenewLatest = "local result = {} " +
		"for i = 1, #KEYS, 1 do " +
		"if (redis.call('hexists', KEYS[i], ARGV[i + 1]) == 1) then " +
		"redis.call('pexpire', KEYS[i], ARGV[1]); " +
		"table.insert(result, 1); " +
		"else " +
		"table.insert(result, 0); " +
		"end; " +
		"end; " +
		"return result;"

	RedissonFencedLock = "if (redis.call('exists', KEYS[1]) == 0 " +
		"or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then " +
		"local token = redis.call('incr', KEYS[2]);" +
		"redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"return {-1, token}; " +
		"end; " +
		"return {redis.call('pttl', KEYS[1]), -1};"
)

func init() {
	register(RedissonLock312, func(x *nativeRun) bool { return lockWith(x, "HSET") })
	// The combined condition sends what 3.16's two branches send.
	register(RedissonLockLatest, lock316)
	register(RedissonUnlockLatest, unlockLatest)
	register(RedissonRenewLatest, renewLatest)
	register(RedissonFencedLock, fencedLock)
}

func unlockLatest(x *nativeRun) bool {
	if !x.has(3, 5) {
		return false
	}
	key, channel, latch := x.keys[0], x.keys[1], x.keys[2]
	msg, lease, id, publish, latchTTL := x.argv[0], x.argv[1], x.argv[2], x.argv[3], x.argv[4]
	val, ok := x.call("GET", latch)
	switch {
	case !ok:
		return false
	case val.equals("0"):
		return x.returnInt(0)
	case val.equals("1"):
		return x.returnInt(1)
	case !val.isNil():
		return false // tonumber of other values
	}
	held, left, ok := x.unhold(key, id, lease)
	switch {
	case !ok:
		return false
	case !held:
		return x.returnNil()
	case left:
		_, ok = x.call("SET", latch, "0", "px", latchTTL)
		return ok && x.returnInt(0)
	}
	if _, ok = x.call("DEL", key); !ok {
		return false
	}
	if publish != "PUBLISH" && publish != "publish" {
		return false // the VM looks the command up
	}
	if _, ok = x.call("PUBLISH", channel, msg); !ok {
		return false
	}
	_, ok = x.call("SET", latch, "1", "px", latchTTL)
	return ok && x.returnInt(1)
}

func renewLatest(x *nativeRun) bool {
	if len(x.keys) > 0 && !x.has(0, len(x.keys)+1) {
		return false
	}
	res := x.out.Ints[:0]
	for i, key := range x.keys {
		r, ok := x.call("HEXISTS", key, x.argv[i+1])
		if !ok {
			return false
		}
		if !r.is(1) {
			res = append(res, 0)
			continue
		}
		if _, ok = x.call("PEXPIRE", key, x.argv[0]); !ok {
			return false
		}
		res = append(res, 1)
	}
	x.out.Kind, x.out.Ints = '*', res
	return true
}

func fencedLock(x *nativeRun) bool {
	if !x.has(2, 2) {
		return false
	}
	key, counter, lease, id := x.keys[0], x.keys[1], x.argv[0], x.argv[1]
	r, ok := x.call("EXISTS", key)
	if !ok {
		return false
	}
	if !r.is(0) {
		if r, ok = x.call("HEXISTS", key, id); !ok {
			return false
		}
		if !r.is(1) {
			pttl, ok := x.call("PTTL", key)
			return ok && pttl.kind == ':' && x.returnInts(luaInt(pttl.n), -1)
		}
	}
	token, ok := x.call("INCR", counter)
	if !ok || token.kind != ':' {
		return false
	}
	return x.hold("HINCRBY", key, lease, id) && x.returnInts(-1, luaInt(token.n))
}
