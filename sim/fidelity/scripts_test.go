package fidelity

// The scripts the lock protocols send, verbatim. Redis caches scripts by
// the SHA1 of their exact text, so each spelling a protocol may send is
// kept: the one-line form of the issue and the seed texts' Java
// concatenation (three-space indents), which is what package protocols
// sends.

// Redisson 3.16 RedissonLock, one-line form.
// acquire: KEYS[1]=lock, ARGV[1]=lease ms, ARGV[2]=id; nil or the PTTL.
const redissonAcquire = "if (redis.call('exists', KEYS[1]) == 0) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);"

// release: KEYS[1]=lock, KEYS[2]=channel, ARGV[1]=0 (unlock message),
// ARGV[2]=lease ms, ARGV[3]=id; nil (not owner), 0 (still held), 1.
const redissonRelease = "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil;end; local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); return 0; else redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); return 1; end; return nil;"

// renew: KEYS[1]=lock, ARGV[1]=lease ms, ARGV[2]=id; 1 or 0.
const redissonRenew = "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('pexpire', KEYS[1], ARGV[1]); return 1; end; return 0;"

// The same three as the seed 000 text concatenates them, which is what
// package protocols sends (a copy: the simulator does not import the
// protocols).
const (
	seedRedissonAcquire = "if (redis.call('exists', KEYS[1]) == 0) then " +
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

	seedRedissonRelease = "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then " +
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

	seedRedissonRenew = "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then " +
		"   redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"   return 1; " +
		"end; " +
		"return 0;"
)

// Compare-and-delete (seed 001): KEYS[1]=lock, ARGV[1]=token; 1 or 0.
const compareAndDelete = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"

// The same as package protocols sends it (seed 001's concatenation).
const seedCompareAndDelete = "if redis.call('get', KEYS[1]) == ARGV[1] then " +
	"   return redis.call('del', KEYS[1]) " +
	"else " +
	"   return 0 " +
	"end"

// Compare-and-pexpire (extend only one's own lock): KEYS[1]=lock,
// ARGV[1]=token, ARGV[2]=lease ms; 1 or 0.
const compareAndPexpire = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`

// Fenced lock: KEYS[1]=lock, KEYS[2]=token counter, ARGV[1]=owner,
// ARGV[2]=lease ms. Takes the next fencing token, then SET NX PX; returns
// the token when the lock was taken, nil when it was held.
const fencedAcquire = "local token = redis.call('incr', KEYS[2]); if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return token; end; return nil;"

// script is one script with how its keys and args are drawn and how its
// reply compares.
type script struct {
	name  string
	src   string
	nkeys int
	reply shape
}

var scripts = []script{
	{"redisson-acquire", redissonAcquire, 1, ttlMs},
	{"redisson-release", redissonRelease, 2, exact},
	{"redisson-renew", redissonRenew, 1, exact},
	{"seed-redisson-acquire", seedRedissonAcquire, 1, ttlMs},
	{"seed-redisson-release", seedRedissonRelease, 2, exact},
	{"seed-redisson-renew", seedRedissonRenew, 1, exact},
	{"compare-and-delete", compareAndDelete, 1, exact},
	{"seed-compare-and-delete", seedCompareAndDelete, 1, exact},
	{"compare-and-pexpire", compareAndPexpire, 1, exact},
	{"fenced-acquire", fencedAcquire, 2, exact},
}
