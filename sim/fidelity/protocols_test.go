package fidelity

import (
	"crypto/sha1"
	"encoding/hex"
	"testing"
)

// step is one command of a directed conformance scenario.
type step struct {
	conn  int
	reply shape
	args  []string
}

func cmd(conn int, args ...string) step       { return step{conn, exact, args} }
func cmdTTL(conn int, args ...string) step    { return step{conn, ttlMs, args} }
func cmdTTLSec(conn int, args ...string) step { return step{conn, ttlSec, args} }
func eval(conn int, src string, keysAndArgs ...string) step {
	n := "1"
	if src == redissonRelease || src == seedRedissonRelease || src == fencedAcquire {
		n = "2"
	}
	return step{conn, exact, append([]string{"EVAL", src, n}, keysAndArgs...)}
}
func evalTTL(conn int, src string, keysAndArgs ...string) step {
	s := eval(conn, src, keysAndArgs...)
	s.reply = ttlMs
	return s
}

func sha(src string) string {
	sum := sha1.Sum([]byte(src))
	return hex.EncodeToString(sum[:])
}

// protocolScenarios replays, step by step, what each lock protocol sends:
// every command and script, on both sides, comparing each reply and then
// the whole key state.
var protocolScenarios = []struct {
	name  string
	steps []step
}{
	{"setnx-del (seed 002)", []step{
		cmd(1, "SET", "trava_nome_ana", "bloqueado", "EX", "60", "NX"),
		cmd(2, "SET", "trava_nome_ana", "bloqueado", "EX", "60", "NX"),
		cmd(2, "GET", "trava_nome_ana"),
		cmdTTLSec(2, "TTL", "trava_nome_ana"),
		cmdTTL(2, "PTTL", "trava_nome_ana"),
		cmd(1, "DEL", "trava_nome_ana"),
		cmd(1, "DEL", "trava_nome_ana"),
		cmd(2, "SET", "trava_nome_ana", "bloqueado", "EX", "60", "NX"),
		cmd(2, "EXISTS", "trava_nome_ana"),
	}},
	{"setnx-lua-del (seed 001)", []step{
		cmd(1, "SET", "lock:goods", "uuid-1main", "EX", "10", "NX"),
		cmd(2, "SET", "lock:goods", "uuid-2main", "EX", "10", "NX"),
		eval(2, seedCompareAndDelete, "lock:goods", "uuid-2main"),
		cmd(1, "GET", "goods:001"),
		cmd(1, "SET", "goods:001", "100"),
		cmd(1, "GET", "goods:001"),
		cmd(1, "SET", "goods:001", "99"),
		eval(1, seedCompareAndDelete, "lock:goods", "uuid-1main"),
		eval(1, seedCompareAndDelete, "lock:goods", "uuid-1main"),
		eval(1, compareAndDelete, "lock:goods", "uuid-1main"),
		cmd(2, "SET", "lock:goods", "uuid-2main", "EX", "10", "NX"),
		eval(2, compareAndDelete, "lock:goods", "uuid-2main"),
		// EVALSHA of a script EVAL has run: cached on both sides.
		cmd(1, "EVALSHA", sha(compareAndDelete), "1", "lock:goods", "x"),
		cmd(1, "SCRIPT", "EXISTS", sha(compareAndDelete), sha(seedCompareAndDelete), sha(redissonRenew)),
	}},
	{"redisson lock, unlock, reentrancy, contention, watchdog", []step{
		eval(1, redissonAcquire, "myLock", "30000", "uuid-1:1"),
		cmd(1, "HGETALL", "myLock"),
		eval(1, redissonAcquire, "myLock", "30000", "uuid-1:1"),
		cmd(1, "HGET", "myLock", "uuid-1:1"),
		evalTTL(2, redissonAcquire, "myLock", "30000", "uuid-2:1"),
		eval(1, redissonRenew, "myLock", "30000", "uuid-1:1"),
		eval(2, redissonRenew, "myLock", "30000", "uuid-2:1"),
		cmdTTL(1, "PTTL", "myLock"),
		eval(2, redissonRelease, "myLock", "redisson_lock__channel:{myLock}", "0", "30000", "uuid-2:1"),
		eval(1, redissonRelease, "myLock", "redisson_lock__channel:{myLock}", "0", "30000", "uuid-1:1"),
		cmd(1, "HEXISTS", "myLock", "uuid-1:1"),
		eval(1, redissonRelease, "myLock", "redisson_lock__channel:{myLock}", "0", "30000", "uuid-1:1"),
		cmd(1, "EXISTS", "myLock"),
		eval(1, redissonRelease, "myLock", "redisson_lock__channel:{myLock}", "0", "30000", "uuid-1:1"),
		eval(2, redissonAcquire, "myLock", "30000", "uuid-2:1"),
		eval(2, redissonRelease, "myLock", "redisson_lock__channel:{myLock}", "0", "30000", "uuid-2:1"),
		cmd(1, "PUBLISH", "redisson_lock__channel:{myLock}", "0"),
	}},
	{"redisson via EVALSHA (seed text, script cache)", []step{
		cmd(1, "EVALSHA", sha(seedRedissonAcquire), "1", "myLock", "30000", "uuid-1:1"),
		cmd(1, "SCRIPT", "LOAD", seedRedissonAcquire),
		cmd(1, "SCRIPT", "LOAD", seedRedissonRelease),
		cmd(1, "SCRIPT", "LOAD", seedRedissonRenew),
		cmd(1, "EVALSHA", sha(seedRedissonAcquire), "1", "myLock", "30000", "uuid-1:1"),
		{2, ttlMs, []string{"EVALSHA", sha(seedRedissonAcquire), "1", "myLock", "30000", "uuid-2:1"}},
		cmd(1, "EVALSHA", sha(seedRedissonRenew), "1", "myLock", "30000", "uuid-1:1"),
		cmd(2, "EVALSHA", sha(seedRedissonRelease), "2", "myLock", "redisson_lock__channel:{myLock}", "0", "30000", "uuid-2:1"),
		cmd(1, "EVALSHA", sha(seedRedissonRelease), "2", "myLock", "redisson_lock__channel:{myLock}", "0", "30000", "uuid-1:1"),
		cmd(1, "EVALSHA", sha(seedRedissonRelease), "2", "myLock", "redisson_lock__channel:{myLock}", "0", "30000", "uuid-1:1"),
		cmd(1, "SCRIPT", "EXISTS", sha(seedRedissonAcquire), sha(redissonAcquire)),
	}},
	{"compare-and-pexpire (extend)", []step{
		cmd(1, "SET", "lock", "tok-1", "NX", "PX", "30000"),
		eval(1, compareAndPexpire, "lock", "tok-1", "60000"),
		cmdTTL(1, "PTTL", "lock"),
		eval(2, compareAndPexpire, "lock", "tok-2", "60000"),
		eval(2, compareAndPexpire, "missing", "tok-2", "60000"),
		eval(1, compareAndDelete, "lock", "tok-1"),
		eval(1, compareAndPexpire, "lock", "tok-1", "60000"),
	}},
	{"fenced lock", []step{
		eval(1, fencedAcquire, "lock", "lock:fence", "c1", "30000"),
		eval(2, fencedAcquire, "lock", "lock:fence", "c2", "30000"),
		cmd(2, "GET", "lock"),
		cmd(2, "GET", "lock:fence"),
		eval(1, compareAndDelete, "lock", "c1"),
		eval(2, fencedAcquire, "lock", "lock:fence", "c2", "30000"),
		cmd(2, "INCR", "lock:fence"),
		cmdTTL(2, "PTTL", "lock"),
	}},
	{"optimistic locking: WATCH/MULTI/EXEC", []step{
		cmd(1, "SET", "goods:001", "10"),
		cmd(1, "WATCH", "goods:001"),
		cmd(1, "GET", "goods:001"),
		cmd(1, "MULTI"),
		cmd(1, "SET", "goods:001", "9"),
		cmd(1, "GET", "goods:001"),
		cmd(1, "EXEC"),
		cmd(1, "WATCH", "goods:001"),
		cmd(2, "SET", "goods:001", "8"),
		cmd(1, "MULTI"),
		cmd(1, "SET", "goods:001", "7"),
		cmd(1, "EXEC"),
		cmd(1, "GET", "goods:001"),
		cmd(1, "WATCH", "goods:001", "lock"),
		cmd(1, "UNWATCH"),
		cmd(2, "SET", "goods:001", "6"),
		cmd(1, "MULTI"),
		cmd(1, "DECR", "goods:001"),
		cmd(1, "DISCARD"),
		cmd(1, "MULTI"),
		cmd(1, "INCR", "goods:001"),
		cmd(1, "EVAL", compareAndDelete, "1", "lock", "x"),
		cmd(1, "EXEC"),
	}},
	{"reservation: MSETNX, GETRANGE", []step{
		cmd(1, "MSETNX", "name:ana", "c1", "name:bia", "c1"),
		cmd(2, "MSETNX", "name:bia", "c2", "name:cid", "c2"),
		cmd(2, "GETRANGE", "name:ana", "0", "-1"),
		cmd(2, "GETRANGE", "name:ana", "1", "1"),
		cmd(2, "GETRANGE", "name:zzz", "0", "3"),
		cmd(2, "EXISTS", "name:ana", "name:bia", "name:cid", "name:ana"),
	}},
}

func TestProtocolCommands(t *testing.T) {
	srv := needRedis(t)
	t.Logf("comparing against %s", srv.describe())
	p := newPair(t, srv, 1)
	defer p.close()
	for _, sc := range protocolScenarios {
		t.Run(sc.name, func(t *testing.T) {
			p.reset(t, 1)
			for _, s := range sc.steps {
				p.do(s.conn, s.reply, s.args...)
				p.state()
			}
		})
	}
}
