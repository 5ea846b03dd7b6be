package protocols

import (
	"strconv"
	"time"

	"github.com/locksim/locksim/sim"
)

// bsm/redislock v0.10.0 (tag v0.10.0, commit a5b7483, 2026-05-18;
// obtain.lua, release.lua and refresh.lua verbatim at that tag, where
// they have not changed since cd93b2b, 2023-11-24; v0.9.x kept other
// scripts inline in redislock.go). Obtain(ctx, key, ttl, nil) makes a
// random token (16 random bytes, base64url, 22 characters) and runs
// obtain.lua once under withRetry with the default NoRetry strategy
// (a script error is terminal; nil is ErrNotObtained). obtain.lua sets
// the key with MSETNX and PEXPIRE, and overwrites a key whose value
// starts with the same token, so a retried obtain whose first attempt
// ran succeeds instead of locking the caller out. Release and Refresh
// compare the full value (token plus metadata) in Lua. No watchdog: the
// caller refreshes if it wants to. The library has no default TTL:
// locksim uses seed 001's 10 s.
//
// The client is go-redis v9 with its defaults, as of v9.23.0 (the tag's
// go.mod asks for v9.19.0 or later; a build takes the newest any module
// asks for, and the bridged redislock runs on v9.23.0): goRedisCall's
// 5 s read timeout, 3 retries of a network error on a fresh connection
// (the timed-out one is closed, so its late reply is never read) after
// RetryBackoff(10 ms, 1 s), refused dials retried. The workload's
// context has no deadline. go-redis's Script.Run sends EVALSHA first and
// EVAL after NOSCRIPT; locksim sends EVAL: one round trip fewer on a
// node's first call, the same script run once.

// obtain.lua, release.lua and refresh.lua and their fast paths are in
// redislock_scripts.go.

func init() {
	register(Protocol{
		Name:    "redislock-go",
		Source:  "bsm/redislock v0.10.0 (a5b7483: Obtain with obtain.lua, Release, Refresh; NoRetry) on go-redis v9",
		Summary: "bsm/redislock: Lua MSETNX+PEXPIRE obtain with a random token, compare-and-delete release, no watchdog",
		Lease:   10 * time.Second,
		Steps:   spinSteps,
		Scripts: redislockScripts,
		New: func(env Env, key string) Lock {
			return &redislockGo{env: env, key: key}
		},
	})
}

type redislockGo struct {
	env   Env
	key   string
	value string
}

// Acquire is Client.Obtain(ctx, key, ttl, nil): one attempt.
func (l *redislockGo) Acquire(t *sim.Thread) (bool, error) {
	token := randomToken(t, false)
	value := token // no metadata
	r, err := goRedisCall(t, l.env, 0, l.env.Master, "EVAL", redislockObtain, "1", l.key, value, strconv.Itoa(len(token)), ms(l.env.Lease))
	if err != nil {
		return false, err
	}
	if r.IsErr() {
		return false, errorReply(r)
	}
	if r.IsNil() {
		return false, nil // ErrNotObtained
	}
	l.value = value
	return true, nil
}

// Release is Lock.Release(ctx): ErrLockNotHeld when the value differs.
func (l *redislockGo) Release(t *sim.Thread) (bool, error) {
	r, err := goRedisCall(t, l.env, 0, l.env.Master, "EVAL", redislockRelease, "1", l.key, l.value)
	if err != nil {
		return false, err
	}
	if r.IsErr() {
		return false, errorReply(r)
	}
	return !r.IsNil(), nil
}

// Refresh is Lock.Refresh(ctx, ttl, nil): ErrNotObtained when the value
// differs.
func (l *redislockGo) Refresh(t *sim.Thread, ttl time.Duration) (bool, error) {
	r, err := goRedisCall(t, l.env, 0, l.env.Master, "EVAL", redislockRefresh, "1", l.key, l.value, ms(ttl))
	if err != nil {
		return false, err
	}
	return !r.IsNil() && !r.IsErr(), nil
}
