package protocols

import (
	"time"

	"github.com/locksim/locksim/sim"
)

// Seed 002 section 4.3: new RedissonMultiLock(trava1, trava2, trava3), one
// RLock per RedissonClient, each client on its own Redis server, and
// travaMultipla.tryLock(10, 60, SECONDS) / unlock(). RedissonMultiLock
// (3.17.0, the seed's redisson-spring-boot-starter) acquires the
// locks one after the other, allows no failure (failedLocksLimit 0): on a
// failure it unlocks what it holds and starts over from the first lock
// while wait time remains. With a lease and a wait, each lock is taken
// with tryLock(remaining wait, 2 * waitTime) and, once all are held,
// every lock is PEXPIREd to the requested lease (60 s). No watchdog. The
// three clients have their own ids.

func init() {
	register(Protocol{
		Name:       "redisson-multilock",
		Source:     "seed 002 section 4.3: Redisson 3.17.0 RedissonMultiLock over 3 RedissonClients, tryLock(10, 60, SECONDS)",
		Summary:    "RedissonMultiLock over 3 independent masters: all must lock, sequentially; 60 s lease",
		Lease:      60 * time.Second,
		Client:     redissonClient316,
		Topologies: []string{TopoIndependent},
		Masters:    3,
		AllMasters: true,
		Steps:      redissonSteps,
		Scripts:    redissonScripts,
		New: func(env Env, key string) Lock {
			m := &multiLock{env: env, wait: 10 * time.Second, lease: env.Lease}
			for _, node := range env.Nodes {
				m.locks = append(m.locks, newRLock(env, node, key, redisson3170, -1, -1))
			}
			return m
		},
	})
}

type multiLock struct {
	env   Env
	locks []*rlock
	wait  time.Duration
	lease time.Duration
}

func (m *multiLock) Acquire(t *sim.Thread) (bool, error) { return m.tryLock(t) }

// tryLock is RedissonMultiLock.tryLock(waitTime, leaseTime, unit).
func (m *multiLock) tryLock(t *sim.Thread) (bool, error) {
	newLease := 2 * m.wait // leaseTime != -1 and waitTime != -1
	now := t.Now()
	remain := m.wait
	lockWait := remain // calcLockWaitTime
	var acquired []*rlock
	for i := 0; i < len(m.locks); i++ {
		l := m.locks[i]
		l.wait, l.lease = min(lockWait, remain), newLease
		ok, err := l.tryLock(t, l.wait)
		if err != nil {
			// RedisResponseTimeoutException: unlock that lock too; any
			// other exception: not acquired.
			if err == sim.ErrTimeout {
				l.unlock(t)
			}
			ok = false
		}
		if ok {
			acquired = append(acquired, l)
		} else {
			t.Note(l.name, "multilock: lock on "+l.node+" not acquired; unlocking the acquired ones and starting over")
			m.unlockInner(t, acquired)
			acquired = acquired[:0]
			i = -1 // reset the iterator
		}
		remain -= t.Now() - now
		now = t.Now()
		if remain <= 0 {
			m.unlockInner(t, acquired)
			return false, nil
		}
	}
	for _, l := range acquired {
		if _, err := t.Call(l.node, "PEXPIRE", l.name, ms(m.lease)); err != nil {
			return false, err // tryLock throws; the locks stay held until they expire
		}
		l.internalLease = m.lease
	}
	return true, nil
}

// unlockInner unlocks each lock and waits for each, ignoring failures.
func (m *multiLock) unlockInner(t *sim.Thread, locks []*rlock) {
	for _, l := range locks {
		l.unlock(t)
	}
}

// Release is RedissonMultiLock.unlock(): unlockAsync on every lock, then
// the first failure is thrown.
func (m *multiLock) Release(t *sim.Thread) (bool, error) {
	all := true
	var first error
	for _, l := range m.locks {
		ok, err := l.unlock(t)
		if err != nil && first == nil {
			first = err
		}
		all = all && ok
	}
	if first != nil {
		return false, first
	}
	return all, nil
}
