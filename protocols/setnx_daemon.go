package protocols

import (
	"time"

	"github.com/locksim/locksim/sim"
)

func init() {
	// Seed 002, section 3: setIfAbsent(chaveTrava, "bloqueado", 30 s); a
	// daemon thread loops { sleep(10 s); t = getExpire(chaveTrava);
	// if (t == -2) break; if (t < 15) expire(chaveTrava, 30 s); }; the
	// finally block deletes the key unconditionally. getExpire is TTL
	// (seconds). The renewal never checks whose key it extends, so it
	// keeps extending a lock another client took after this one's
	// expired; Java would end the daemon with the JVM, here it runs until
	// TTL says the key is gone (-2), or a command fails (the exception
	// ends the thread).
	register(Protocol{
		Name:    "setnx-daemon-renew",
		Source:  "seed 002 section 3 (setIfAbsent 30 s, daemon renewal thread, delete)",
		Summary: "SET NX EX 30; a daemon re-EXPIREs below 15 s every 10 s without an owner check; DEL",
		Lease:   30 * time.Second,
		Renews:  true,
		Steps:   spinSteps,
		New: func(env Env, key string) Lock {
			return &setnxDaemon{env: env, key: key}
		},
	})
}

type setnxDaemon struct {
	env Env
	key string
}

// daemon period and threshold from the seed.
const (
	daemonPeriod    = 10 * time.Second
	daemonThreshold = 15 // seconds
)

func (l *setnxDaemon) Acquire(t *sim.Thread) (bool, error) {
	r, err := t.Call(l.env.Master, "SET", l.key, "bloqueado", "EX", seconds(l.env.Lease), "NX")
	if err != nil {
		return false, err
	}
	if r.Kind != '+' || r.Str != "OK" {
		return false, nil
	}
	node, key, lease := l.env.Master, l.key, seconds(l.env.Lease)
	t.Go(t.Name+"-daemonRenovacao", func(d *sim.Thread) {
		for {
			d.Sleep(daemonPeriod)
			ttl, err := d.Call(node, "TTL", key)
			if err != nil {
				return
			}
			if ttl.Int == -2 {
				return
			}
			if ttl.Int < daemonThreshold {
				if _, err := d.Call(node, "EXPIRE", key, lease); err != nil {
					return
				}
			}
		}
	})
	return true, nil
}

func (l *setnxDaemon) Release(t *sim.Thread) (bool, error) {
	r, err := t.Call(l.env.Master, "DEL", l.key)
	if err != nil {
		return false, err
	}
	return r.Int == 1, nil
}
