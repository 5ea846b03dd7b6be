package locktest_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/traces/locktest"
)

// The README's go-redis example: a lock written with plain go-redis
// calls, checked unmodified under failover.

var errTaken = errors.New("lock taken")

// redisLock: SET key token NX PX, and a Lua compare-and-delete to unlock.
type redisLock struct {
	rdb        redis.UniversalClient
	key, token string
}

var unlock = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0`)

func (l *redisLock) Lock(ctx context.Context) error {
	b := make([]byte, 16)
	rand.Read(b)
	l.token = hex.EncodeToString(b)
	ok, err := l.rdb.SetNX(ctx, l.key, l.token, 10*time.Second).Result()
	if err == nil && !ok {
		return errTaken
	}
	return err
}

func (l *redisLock) Unlock(ctx context.Context) error {
	return unlock.Run(ctx, l.rdb, []string{l.key}, l.token).Err()
}

// myGoRedisConfig is what the README's TestMyGoRedisLock checks.
var myGoRedisConfig = locktest.Config{
	GoRedis: &locktest.GoRedis{
		Name:    "my-go-redis-lock",
		New:     func(rdb redis.UniversalClient, key string) locktest.Locker { return &redisLock{rdb: rdb, key: key} },
		Lease:   10 * time.Second,
		Refused: func(err error) bool { return errors.Is(err, errTaken) },
	},
	Faults:     []string{"failover"},
	Topologies: []string{"replicated"}, // go-redis's NewFailoverClient asks the sentinel
}

// TestMyGoRedisLock is the README's test. It fails, as it should, so it
// only runs with LOCKTEST_README=1; TestMyGoRedisLockIsCaught checks the
// same failure.
func TestMyGoRedisLock(t *testing.T) {
	if os.Getenv("LOCKTEST_README") == "" {
		t.Skip("the README's failing example: run with LOCKTEST_README=1 to see its output")
	}
	locktest.Check(t, myGoRedisConfig)
}

func TestMyGoRedisLockIsCaught(t *testing.T) {
	cfg := myGoRedisConfig
	cfg.TraceDir = t.TempDir()
	cfg.ShrinkRuns = 300
	r := locktest.NewRecorder(t)
	locktest.Check(r, cfg)
	msg := r.Message()
	// rapid draws its own seed: a failover loses the key on the promoted
	// replica, or, when a later failover restarts that replica, loses it
	// there for want of persistence. Either breaks mutual exclusion.
	byFailover := strings.HasPrefix(msg, "locksim: mutual-exclusion violated (lost-after-failover)\n") ||
		strings.HasPrefix(msg, "locksim: mutual-exclusion violated (restart-without-persistence)\n")
	if !byFailover || !strings.Contains(msg, "go test -run '^TestMyGoRedisLockIsCaught$' -locktest.replay=") {
		t.Fatalf("message:\n%s", msg)
	}
}
