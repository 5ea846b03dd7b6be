package protocols

import (
	"errors"
	"time"

	"github.com/locksim/locksim/sim"
)

// Spring Integration's RedisLockRegistry (v6.4.10, 16e0ef8a2b; the spin
// lock's scripts are the same across 6.4.x; spin-lock mode, the
// default): one registry per application instance with a random UUID as
// its clientId; obtain(path) returns the registry's lock for the path
// (key registryKey:path), whose lock() takes a local ReentrantLock first
// and then spins on the obtain script every idleBetweenTries (100 ms)
// until it answers true. The obtain script re-arms the key when its value
// is this registry's clientId and sets it with PX expireAfter (60 s)
// otherwise: the Redis lock belongs to the process, the local lock orders
// the process's threads. unlock() runs the UNLINK script (compare the
// clientId, UNLINK) and falls back to DEL when UNLINK is unknown; a false
// answer is a ConcurrentModificationException ("Lock was released in the
// store due to expiration"), and the local lock is released in every
// case. No renewal unless a renewal TaskScheduler is configured (not by
// default). The client is Lettuce with its defaults (60 s command
// timeout, no retries).

// The obtain script and the two unlock scripts (UNLINK, then DEL) and
// their fast paths are in compare_scripts.go.

// Spring defaults.
const (
	springIdleBetweenTries = 100 * time.Millisecond
	springRegistryKey      = "locksim"
)

// ErrConcurrentModification is the exception unlock() throws when the key
// was no longer this registry's.
var ErrConcurrentModification = errors.New("ConcurrentModificationException: Lock was released in the store due to expiration. The integrity of data protected by this lock may have been compromised.")

func init() {
	register(Protocol{
		Name:    "spring-registry",
		Source:  "Spring Integration v6.4.10 RedisLockRegistry (spin lock: obtain script, 100 ms idle, UNLINK script)",
		Summary: "Spring RedisLockRegistry: local ReentrantLock, then spin on a clientId Lua obtain every 100 ms; 60 s expiry",
		Lease:   60 * time.Second,
		Client:  sim.ClientConfig{Timeout: 60 * time.Second},
		Steps:   springSteps,
		Scripts: springScripts,
		New: func(env Env, key string) Lock {
			return &springLock{env: env, path: key}
		},
	})
}

type springRegistry struct {
	clientID        string
	unlinkAvailable bool
}

type springLock struct {
	env  Env
	path string
}

func (l *springLock) registry(t *sim.Thread) *springRegistry {
	return l.env.local(t.Process(), "spring-registry", func() any {
		return &springRegistry{clientID: uuid(t), unlinkAvailable: true}
	}).(*springRegistry)
}

func (l *springLock) lockKey() string { return springRegistryKey + ":" + l.path }

// RedisKey is the key the lock lives under.
func (l *springLock) RedisKey() string { return l.lockKey() }

func (l *springLock) localLock(t *sim.Thread) *sim.Sem {
	return t.Process().Sem("spring-local:"+l.lockKey(), 1)
}

// Acquire is lock(): the local lock, then spin until obtained; a failure
// of the script releases the local lock and throws
// CannotAcquireLockException.
func (l *springLock) Acquire(t *sim.Thread) (bool, error) {
	local := l.localLock(t)
	local.Acquire(t, -1)
	reg := l.registry(t)
	for {
		r, err := t.Call(l.env.Master, "EVAL", springObtain, "1", l.lockKey(), reg.clientID, ms(l.env.Lease))
		if err == nil && r.IsErr() {
			err = errorReply(r)
		}
		if err != nil {
			local.Release(1)
			return false, err
		}
		if r.Kind == ':' && r.Int == 1 {
			return true, nil
		}
		t.Sleep(springIdleBetweenTries)
	}
}

// Release is unlock(): removeLockKey, then the local lock in finally.
func (l *springLock) Release(t *sim.Thread) (bool, error) {
	defer l.localLock(t).Release(1)
	reg := l.registry(t)
	if reg.unlinkAvailable {
		r, err := t.Call(l.env.Master, "EVAL", springUnlinkUnlock, "1", l.lockKey(), reg.clientID)
		if err == nil && r.IsErr() {
			err = errorReply(r)
		}
		switch {
		case err != nil:
			reg.unlinkAvailable = false // any exception means "no UNLINK": fall back to DEL
		case r.Kind == ':' && r.Int == 1:
			return true, nil
		default:
			t.Note(l.lockKey(), ErrConcurrentModification.Error())
			return false, nil
		}
	}
	r, err := t.Call(l.env.Master, "EVAL", springDeleteUnlock, "1", l.lockKey(), reg.clientID)
	if err != nil {
		return false, err
	}
	if r.Kind == ':' && r.Int == 1 {
		return true, nil
	}
	t.Note(l.lockKey(), ErrConcurrentModification.Error())
	return false, nil
}
