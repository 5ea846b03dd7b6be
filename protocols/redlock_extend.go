package protocols

import (
	"time"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// redsync v4.18.1 with WithSetNXOnExtend() (added in v4.12.0): Extend runs touchWithSetNXScript,
// which re-arms the key when it is ours and, when the key is gone, takes
// it again with SET NX ("useful if your redis instances got restarted").
// The lock is kept alive the way redsync users do it: a goroutine calls
// Extend every expiry/2 until the lock is released or Extend fails. A
// keep-alive that runs late finds an expired key and silently takes the
// lock back, while another client may have held it in between.
// (touchWithSetNXScript and its fast path are in compare_scripts.go.)

func init() {
	register(Protocol{
		Name:       "redlock-setnx-extend",
		Source:     "go-redsync/redsync v4.18.1 Mutex with WithSetNXOnExtend (option since v4.12.0) (touchWithSetNXScript), kept alive by Extend every expiry/2",
		Summary:    "redsync Redlock whose keep-alive Extend uses SET NX: a late extend silently re-takes an expired lock",
		Lease:      8 * time.Second,
		Renews:     true,
		Topologies: []string{TopoIndependent, TopoSingle},
		Masters:    5,
		Steps:      redlockSteps,
		Scripts:    redsyncSetNXScripts,
		New: func(env Env, key string) Lock {
			return &redlockKeepAlive{redlock: redlock{env: env, key: key, expiry: env.Lease, touch: redsyncTouchWithSetNX}}
		},
	})
}

type redlockKeepAlive struct {
	redlock
	held bool
}

func (l *redlockKeepAlive) Acquire(t *sim.Thread) (bool, error) {
	ok, err := l.redlock.Acquire(t)
	if !ok {
		return ok, err
	}
	l.held = true
	value := l.value
	t.Go(t.Name+"-keepalive", func(k *sim.Thread) {
		for {
			k.Sleep(l.expiry / 2)
			if !l.held || l.value != value {
				return
			}
			id := k.Invoke(model.OpRenew, l.key, "")
			ok, err := l.Extend(k)
			k.Return(id, result(ok, err, model.ResNotOwner))
			if !ok {
				return
			}
		}
	})
	return true, nil
}

func (l *redlockKeepAlive) Release(t *sim.Thread) (bool, error) {
	l.held = false
	return l.redlock.Release(t)
}
