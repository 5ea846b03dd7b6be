package locktest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"
)

// The go-redis locks these tests run unmodified through the bridge.

// errNotAcquired is plainLock's refusal.
var errNotAcquired = errors.New("lock held by another client")

// casDelete deletes the key only while it still holds our token.
var casDelete = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

// plainLock is a hand-written go-redis lock: SET key token NX PX, and a
// Lua compare-and-delete to unlock.
type plainLock struct {
	rdb        redis.UniversalClient
	key, token string
	ttl        time.Duration
}

func newPlainLock(rdb redis.UniversalClient, key string) Locker {
	return &plainLock{rdb: rdb, key: key, ttl: 10 * time.Second}
}

func (l *plainLock) Lock(ctx context.Context) error {
	b := make([]byte, 16)
	rand.Read(b)
	l.token = hex.EncodeToString(b)
	ok, err := l.rdb.SetNX(ctx, l.key, l.token, l.ttl).Result()
	switch {
	case err != nil:
		return err
	case !ok:
		return errNotAcquired
	}
	return nil
}

func (l *plainLock) Unlock(ctx context.Context) error {
	n, err := casDelete.Run(ctx, l.rdb, []string{l.key}, l.token).Int()
	if err == nil && n == 0 {
		return errNotOwner
	}
	return err
}

var errNotOwner = errors.New("lock no longer ours")

// plainGoRedis is plainLock as locktest takes it.
var plainGoRedis = &GoRedis{Name: "go-plain-setnx", New: newPlainLock, Lease: 10 * time.Second,
	Refused:  func(err error) bool { return errors.Is(err, errNotAcquired) },
	NotOwner: func(err error) bool { return errors.Is(err, errNotOwner) }}

// redsyncLock is redsync's Mutex with its defaults, over a pool of
// independent masters.
type redsyncLock struct{ m *redsync.Mutex }

func newRedsync(opts ...redsync.Option) func(clients []redis.UniversalClient, key string) Locker {
	return func(clients []redis.UniversalClient, key string) Locker {
		pools := make([]redsyncredis.Pool, len(clients))
		for i, c := range clients {
			pools[i] = goredis.NewPool(c)
		}
		return redsyncLock{redsync.New(pools...).NewMutex(key, opts...)}
	}
}

func (l redsyncLock) Lock(ctx context.Context) error { return l.m.LockContext(ctx) }

func (l redsyncLock) Unlock(ctx context.Context) error {
	ok, err := l.m.UnlockContext(ctx)
	if err == nil && !ok {
		return redsync.ErrLockAlreadyExpired
	}
	return err
}

// redsyncRefused: the quorum was taken, or every try failed.
func redsyncRefused(err error) bool {
	var taken *redsync.ErrTaken
	return errors.Is(err, redsync.ErrFailed) || errors.As(err, &taken)
}

func redsyncNotOwner(err error) bool { return errors.Is(err, redsync.ErrLockAlreadyExpired) }

var redsyncGoRedis = &GoRedis{Name: "go-redsync", NewPool: newRedsync(), Lease: 8 * time.Second,
	Refused: redsyncRefused, NotOwner: redsyncNotOwner}

// redislockLock is bsm/redislock's Obtain and Release with its defaults
// (no retry: a held lock is refused at once).
type redislockLock struct {
	c   *redislock.Client
	key string
	ttl time.Duration
	l   *redislock.Lock
}

func newRedislock(rdb redis.UniversalClient, key string) Locker {
	return &redislockLock{c: redislock.New(rdb), key: key, ttl: 10 * time.Second}
}

func (l *redislockLock) Lock(ctx context.Context) error {
	lk, err := l.c.Obtain(ctx, l.key, l.ttl, nil)
	if err == nil {
		l.l = lk
	}
	return err
}

func (l *redislockLock) Unlock(ctx context.Context) error {
	if l.l == nil {
		return redislock.ErrLockNotHeld
	}
	return l.l.Release(ctx)
}

var redislockGoRedis = &GoRedis{Name: "go-redislock", New: newRedislock, Lease: 10 * time.Second,
	Refused:  func(err error) bool { return errors.Is(err, redislock.ErrNotObtained) },
	NotOwner: func(err error) bool { return errors.Is(err, redislock.ErrLockNotHeld) }}
