// Package goredislock_test checks a lock written with go-redis, as a
// team would in its own repository: the lock code is unmodified, and
// locktest runs it against simulated Redis nodes under faults.
package goredislock_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/traces/locktest"
)

// errTaken: another client holds the lock.
var errTaken = errors.New("lock taken")

// Lock is SET key token NX PX to acquire and a Lua compare-and-delete to
// release: the usual single-master Redis lock.
type Lock struct {
	rdb        redis.UniversalClient
	key, token string
}

var unlockScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0`)

// Lock takes the lock or returns errTaken.
func (l *Lock) Lock(ctx context.Context) error {
	b := make([]byte, 16)
	rand.Read(b) // seeded per run by locktest: runs replay byte for byte
	l.token = hex.EncodeToString(b)
	ok, err := l.rdb.SetNX(ctx, l.key, l.token, 10*time.Second).Result()
	if err == nil && !ok {
		return errTaken
	}
	return err
}

// Unlock releases the lock if this client still holds it.
func (l *Lock) Unlock(ctx context.Context) error {
	return unlockScript.Run(ctx, l.rdb, []string{l.key}, l.token).Err()
}

// config describes the lock to locktest: how to build one on a go-redis
// client, its lease, and which error means "someone else holds it".
func config(faults ...string) locktest.Config {
	return locktest.Config{
		GoRedis: &locktest.GoRedis{
			Name:    "example-go-redis-lock",
			New:     func(rdb redis.UniversalClient, key string) locktest.Locker { return &Lock{rdb: rdb, key: key} },
			Lease:   10 * time.Second,
			Refused: func(err error) bool { return errors.Is(err, errTaken) },
		},
		Faults: faults,
		Checks: 20, // scenarios drawn per run of the test
	}
}

// TestLockSurvivesCrashesAndLostReplies passes: a client that crashes
// while holding the lock, or a reply that never arrives, cannot make two
// clients hold it at once (the key expires; the release checks the
// token). This is the kind of test to keep in CI.
func TestLockSurvivesCrashesAndLostReplies(t *testing.T) {
	locktest.Check(t, config("client-crash", "reply-loss"))
}

// TestLockUnderGCPause fails, as it should: a pause longer than the
// lease lets a second client in. It runs only with LOCKSIM_EXAMPLE=1 so
// that go test ./... stays green; its message is shown in docs/go-api.md.
func TestLockUnderGCPause(t *testing.T) {
	if os.Getenv("LOCKSIM_EXAMPLE") == "" {
		t.Skip("fails on purpose: run with LOCKSIM_EXAMPLE=1 to see the report")
	}
	locktest.Check(t, config("gc-pause"))
}
