package fidelity

import "testing"

// TestWatchTouch checks, for each command a protocol sends, whether it
// invalidates another connection's WATCH (EXEC returns nil) exactly when
// real Redis does: writes that change nothing (a failed SET NX, DEL of a
// missing key, a compare-and-delete that does not match) must not.
func TestWatchTouch(t *testing.T) {
	srv := needRedis(t)
	p := newPair(t, srv, 1)
	defer p.close()
	setup := [][]string{
		{"SET", "lock", "tok-1", "PX", "60000"},
		{"HSET", "rlock", "id1", "1"},
		{"PEXPIRE", "rlock", "60000"},
	}
	cases := []struct {
		name  string
		watch string
		other [][]string
	}{
		{"nothing", "lock", nil},
		{"GET", "lock", [][]string{{"GET", "lock"}, {"EXISTS", "lock"}, {"PTTL", "lock"}, {"TTL", "lock"}, {"GETRANGE", "lock", "0", "2"}}},
		{"SET same value", "lock", [][]string{{"SET", "lock", "tok-1", "PX", "60000"}}},
		{"SET NX fails", "lock", [][]string{{"SET", "lock", "tok-2", "NX", "PX", "60000"}}},
		{"SET XX on missing", "missing", [][]string{{"SET", "missing", "v", "XX"}}},
		{"SET NX on missing", "missing", [][]string{{"SET", "missing", "v", "NX", "PX", "60000"}}},
		{"DEL", "lock", [][]string{{"DEL", "lock"}}},
		{"DEL missing", "missing", [][]string{{"DEL", "missing"}}},
		{"create then DEL", "missing", [][]string{{"SET", "missing", "v"}, {"DEL", "missing"}}},
		{"PEXPIRE", "lock", [][]string{{"PEXPIRE", "lock", "30000"}}},
		{"PEXPIRE same TTL", "lock", [][]string{{"PEXPIRE", "lock", "60000"}}},
		{"PEXPIRE missing", "missing", [][]string{{"PEXPIRE", "missing", "30000"}}},
		{"EXPIRE 0 deletes", "lock", [][]string{{"EXPIRE", "lock", "0"}}},
		{"INCR", "fence", [][]string{{"INCR", "fence"}}},
		{"INCR on text fails", "lock", [][]string{{"INCR", "lock"}}},
		{"HINCRBY wrong type", "lock", [][]string{{"HINCRBY", "lock", "id1", "1"}}},
		{"HINCRBY", "rlock", [][]string{{"HINCRBY", "rlock", "id1", "1"}}},
		{"HSET same value", "rlock", [][]string{{"HSET", "rlock", "id1", "1"}}},
		{"HEXISTS, HGET", "rlock", [][]string{{"HEXISTS", "rlock", "id1"}, {"HGET", "rlock", "id1"}}},
		{"MSETNX fails", "lock", [][]string{{"MSETNX", "lock", "x", "other", "y"}}},
		{"MSETNX", "other", [][]string{{"MSETNX", "other", "y"}}},
		{"PUBLISH", "lock", [][]string{{"PUBLISH", "lock", "0"}}},
		{"compare-and-delete, wrong token", "lock", [][]string{{"EVAL", compareAndDelete, "1", "lock", "tok-2"}}},
		{"compare-and-delete", "lock", [][]string{{"EVAL", compareAndDelete, "1", "lock", "tok-1"}}},
		{"compare-and-pexpire, wrong token", "lock", [][]string{{"EVAL", compareAndPexpire, "1", "lock", "tok-2", "30000"}}},
		{"compare-and-pexpire", "lock", [][]string{{"EVAL", compareAndPexpire, "1", "lock", "tok-1", "30000"}}},
		{"redisson acquire, held", "rlock", [][]string{{"EVAL", redissonAcquire, "1", "rlock", "30000", "id2"}}},
		{"redisson acquire, reentrant", "rlock", [][]string{{"EVAL", redissonAcquire, "1", "rlock", "30000", "id1"}}},
		{"redisson renew, not owner", "rlock", [][]string{{"EVAL", redissonRenew, "1", "rlock", "30000", "id2"}}},
		{"redisson renew", "rlock", [][]string{{"EVAL", redissonRenew, "1", "rlock", "30000", "id1"}}},
		{"redisson release, not owner", "rlock", [][]string{{"EVAL", redissonRelease, "2", "rlock", "ch", "0", "30000", "id2"}}},
		{"redisson release", "rlock", [][]string{{"EVAL", redissonRelease, "2", "rlock", "ch", "0", "30000", "id1"}}},
		{"fenced acquire, held: token key", "fence", [][]string{{"EVAL", fencedAcquire, "2", "lock", "fence", "c2", "30000"}}},
		{"fenced acquire, held: lock key", "lock", [][]string{{"EVAL", fencedAcquire, "2", "lock", "fence", "c2", "30000"}}},
		{"script error before any write", "rlock", [][]string{{"EVAL", compareAndDelete, "1", "rlock", "x"}}},
	}
	for _, c := range cases {
		for _, own := range []bool{false, true} {
			name := c.name
			conn := 2
			if own {
				name += ", same connection"
				conn = 1
			}
			t.Run(name, func(t *testing.T) {
				p.reset(t, 1)
				for _, s := range setup {
					p.do(3, exact, s...)
				}
				p.do(1, exact, "WATCH", c.watch)
				for _, o := range c.other {
					p.do(conn, ttlMs, o...)
				}
				p.do(1, exact, "MULTI")
				p.do(1, exact, "SET", "result", "ran")
				p.do(1, exact, "EXEC")
				p.state()
			})
		}
	}
}
