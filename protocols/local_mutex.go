package protocols

import (
	"time"

	"github.com/locksim/locksim/sim"
)

func init() {
	// Seed 002, section 1: synchronized (pessoa.getNome().intern()) { ... }
	// around the re-check and the INSERT. The monitor of an interned
	// string is one per JVM: each process has its own, so the lock
	// excludes threads of one process and nobody else. It never talks
	// to Redis.
	register(Protocol{
		Name:    "local-mutex",
		Source:  "seed 002 section 1 (synchronized on the interned name)",
		Summary: "a monitor per process and name: safe inside one JVM, no exclusion across processes",
		Lease:   60 * time.Second,   // unused: the monitor never expires
		Steps:   StepCost{Base: 25}, // no Redis: 11
		New: func(env Env, key string) Lock {
			return &localMutex{key: key}
		},
	})
}

// localMutex is a JVM monitor: a process semaphore with one permit per
// name, waited on forever in FIFO order (synchronized blocks do not time
// out).
type localMutex struct {
	key string
}

func (l *localMutex) sem(t *sim.Thread) *sim.Sem {
	return t.Process().Sem("synchronized:"+l.key, 1)
}

func (l *localMutex) Acquire(t *sim.Thread) (bool, error) {
	return l.sem(t).Acquire(t, -1), nil
}

func (l *localMutex) Release(t *sim.Thread) (bool, error) {
	l.sem(t).Release(1)
	return true, nil
}
