package protocols

import "time"

// Redisson PR #7277 ("fix: prevent lock watchdog from outliving unlock",
// https://github.com/redisson/redisson/pull/7277, open and unmerged),
// head 26fb85a0e, on master 66863978b: redisson-latest with the PR's
// changes to RedissonLock.tryAcquireAsync/tryAcquireAsync0 and
// RedissonBaseLock.unlockAsync0 for lock() with the watchdog:
//
//   - the watchdog entry is registered before the acquire script is
//     sent, so an unlock's cancel always finds it; the script's callback
//     cancels it when the lock was not acquired (or the call failed);
//   - unlock cancels the renewal before it sends the unlock script, not
//     in the script's callback;
//   - when get() cancelled the acquire's future (the caller was
//     interrupted), the entry is cancelled and an unlock is sent without
//     waiting for it.
//
// The fixed-lease paths, RFencedLock and the multilocks the PR also
// changes are not modelled here.

func init() {
	register(Protocol{
		Name:    "redisson-pr7277",
		Source:  "Redisson master 66863978b with PR #7277 (unmerged, head 26fb85a0e): RedissonLock.lock(), watchdog registered before the acquire",
		Summary: "redisson-latest with the unmerged fix of #7272: renewal registered before the acquire, cancelled before the unlock",
		Lease:   30 * time.Second,
		Renews:  true,
		Client:  redissonClientLatest,
		Scripts: redissonLatestScripts,
		New: func(env Env, key string) Lock {
			return newRLock(env, env.Master, key, redissonPR7277, -1, -1)
		},
	})
}
