package protocols

import (
	"time"

	"github.com/locksim/locksim/sim"
)

// The Redisson releases in the catalog, read at their tags in
// redisson/redisson (RedissonLock, RedissonBaseLock, RedisExecutor,
// RedisCommonBatchExecutor, config.BaseConfig). They share the three
// scripts of seed 000 (3.12.0's lock script writes a new hold with HSET
// where later ones use HINCRBY: the same effect on a missing key) and
// differ in what the client does around them:
//
//	                    renew -> 0        renew error      unlock -> nil     WAIT after a script
//	3.12.0              entry stays       entry stays      entry stays       none
//	3.16.0 (redisson)   entry stays       entry removed    entry removed     batch, count ignored
//	3.16.1              entry removed     entry removed    entry removed     batch, count ignored
//	3.17.0              entry removed     entry removed    entry removed     batch, "Only n of m slaves were synced"
//
// An entry that stays in EXPIRATION_RENEWAL_MAP after its renewal
// stopped makes the next lock() of the same name in that process join it
// instead of starting a watchdog: that hold expires after 30 s whatever
// the holder does (Redisson #2515, fixed in 3.12.1; #3712, fixed in
// 3.16.1). A batch with WAIT has the response timeout plus the WAIT's
// 1000 ms: 4000 ms.

const (
	redisson3120   redissonVersion = iota // 3.12.0
	redisson3160                          // 3.16.0: the release `redisson` names
	redisson3161                          // 3.16.1
	redisson3170                          // 3.17.0: seed 002's starter
	redissonLatest                        // see redisson_latest.go
	redissonPR7277                        // redissonLatest with PR #7277 (unmerged), see redisson_pr7277.go
)

// latestLine: the newer client of redisson_latest.go (combined script,
// unlock latch, renewal task, asynchronous callbacks).
func (v redissonVersion) latestLine() bool { return v >= redissonLatest }

// renewZeroKeepsEntry: a renewal answering 0 neither reschedules nor
// cancels (up to 3.16.0).
func (v redissonVersion) renewZeroKeepsEntry() bool { return v <= redisson3160 }

// renewErrorKeepsEntry: a failed renewal only logs (3.12.0).
func (v redissonVersion) renewErrorKeepsEntry() bool { return v == redisson3120 }

// unlockNilKeepsEntry: an unlock answering nil throws before
// cancelExpirationRenewal (3.12.0).
func (v redissonVersion) unlockNilKeepsEntry() bool { return v == redisson3120 }

// batched: scripts go in a batch with WAIT <available slaves> 1000.
func (v redissonVersion) batched() bool { return v >= redisson3160 }

// checksSyncedSlaves: fewer WAIT acknowledgements than available slaves
// fail the call (3.17.0's checkLockSyncedSlaves, on by default).
func (v redissonVersion) checksSyncedSlaves() bool { return v == redisson3170 }

// redissonClient316 is the default client configuration of 3.12 to 3.17:
// timeout 3000 ms, retryAttempts 3, retryInterval 1500 ms; a timed-out
// attempt is cancelled and resent (RedisExecutor).
var redissonClient316 = sim.ClientConfig{Timeout: 3000 * time.Millisecond, Retries: 3,
	RetryInterval: 1500 * time.Millisecond, CancelOnTimeout: true}

func init() {
	lock := func(v redissonVersion) func(env Env, key string) Lock {
		return func(env Env, key string) Lock { return newRLock(env, env.Master, key, v, -1, -1) }
	}
	register(Protocol{
		Name:    "redisson",
		Source:  "Redisson 3.16.0 RedissonLock.lock() with seed 000's scripts (seed 001 buy())",
		Summary: "Redisson 3.16.0 RLock.lock(): reentrant hash, pub/sub wait, watchdog every 10 s; a renewal answering 0 leaves its entry (#3712)",
		Lease:   30 * time.Second, // lockWatchdogTimeout
		Renews:  true,
		Client:  redissonClient316,
		Steps:   redissonSteps,
		Scripts: redissonScripts,
		New:     lock(redisson3160),
	})
	register(Protocol{
		Name:    "redisson-3.16.1",
		Source:  "Redisson 3.16.1 RedissonLock.lock() (renewExpiration cancels on 0)",
		Summary: "Redisson 3.16.1 RLock.lock(): as redisson, but a renewal answering 0 cancels its entry",
		Lease:   30 * time.Second,
		Renews:  true,
		Client:  redissonClient316,
		Steps:   redissonSteps,
		Scripts: redissonScripts,
		New:     lock(redisson3161),
	})
	register(Protocol{
		Name:    "redisson-3.12.0",
		Source:  "Redisson 3.12.0 RedissonLock.lock()",
		Summary: "Redisson 3.12.0 RLock.lock(): a failed renewal or an unlock answering nil leaves the renewal entry (#2515)",
		Lease:   30 * time.Second,
		Renews:  true,
		Client:  redissonClient316,
		Steps:   redissonSteps,
		Scripts: redissonScripts,
		New:     lock(redisson3120),
	})
	register(Protocol{
		Name:    "redisson-3.17.0",
		Source:  "Redisson 3.17.0 RedissonLock.lock() (seed 002's starter; checkLockSyncedSlaves on)",
		Summary: "Redisson 3.17.0 RLock.lock(): an unsynced WAIT fails the call; a failed renewal stops the watchdog (#4305)",
		Lease:   30 * time.Second,
		Renews:  true,
		Client:  redissonClient316,
		Steps:   redissonSteps,
		Scripts: redissonScripts,
		New:     lock(redisson3170),
	})
	register(Protocol{
		Name:    "redisson-trylock",
		Source:  "Redisson 3.17.0 RedissonLock.tryLock(5, 30, SECONDS) (seed 002 section 4.2, redisson-spring-boot-starter 3.17.0)",
		Summary: "Redisson 3.17.0 RLock.tryLock(5 s wait, 30 s lease): no watchdog; an unsynced WAIT throws",
		Lease:   30 * time.Second,
		Client:  redissonClient316,
		Steps:   redissonSteps,
		Scripts: redissonScripts,
		New: func(env Env, key string) Lock {
			return newRLock(env, env.Master, key, redisson3170, 5*time.Second, env.Lease)
		},
	})
}
