package protocols

import (
	"time"

	"github.com/locksim/locksim/sim"
)

// Redisson's RFencedLock (RedissonFencedLock, master at 66863978b): the newer
// RLock whose lock script also INCRs redisson_lock_token:{name} and
// returns the counter with each acquisition, lockAndGetToken() with the
// watchdog. The script goes through syncedEvalNoRetry: no command
// retries on a single server. The workloads hand the token to the protected resource,
// which rejects a token lower than the highest it has seen for that
// resource. The counter has no expiry, but it lives on the lock's Redis
// master like the lock: a failover that loses the INCR hands the next
// holder a token that is not higher.

// Its script and fast path are in redisson_latest_scripts.go.

func init() {
	register(Protocol{
		Name:    "fenced",
		Source:  "Redisson RFencedLock.lockAndGetToken() (RedissonFencedLock, master 66863978b)",
		Summary: "newer Redisson lock whose script INCRs a fencing token; the resource rejects stale tokens",
		Lease:   30 * time.Second,
		Renews:  true,
		Client:  redissonClientLatest,
		Steps:   redissonSteps,
		Scripts: fencedScripts,
		New: func(env Env, key string) Lock {
			l := newRLock(env, env.Master, key, redissonLatest, -1, -1)
			l.fence = true
			return fencedLock{l}
		},
	})
}

// fencedLock is an RFencedLock: the RLock whose acquisitions hand out
// tokens. Only it is a Fencer; the other RLocks hand out none.
type fencedLock struct{ *rlock }

// Token is the fencing token of the last acquisition.
func (l fencedLock) Token() int64 { return l.token }

func (l *rlock) tokenName() string { return prefixName("redisson_lock_token", l.name) }

// tryAcquireFenced runs the fenced lock script: {-1, token} when
// acquired, {pttl, -1} otherwise.
func (l *rlock) tryAcquireFenced(t *sim.Thread, lease time.Duration) (acquireResult, error) {
	r, err := l.synced(t, true, redissonFencedLock, []string{l.name, l.tokenName()}, ms(lease), l.lockName(t))
	if err != nil {
		return acquireResult{}, err
	}
	if len(r.Array) != 2 {
		return acquireResult{}, replyError("fenced lock script: unexpected reply " + r.String())
	}
	if r.Array[0].Int == -1 {
		l.token = r.Array[1].Int
		return acquireResult{ok: true}, nil
	}
	return acquireResult{ttl: r.Array[0].Int}, nil
}
