package protocols

import (
	"time"

	"github.com/locksim/locksim/sim"
)

func init() {
	// Seed 001, "Versão 1.0": token = UUID.randomUUID().toString() +
	// Thread.currentThread().getName(); setIfAbsent(LOCK_KEY, token, 10 s);
	// finally { if (token.equals(get(LOCK_KEY))) delete(LOCK_KEY); }.
	// The GET and the DEL are two commands: the key can expire and be
	// taken by another client in between, and the DEL removes that
	// client's lock.
	register(Protocol{
		Name:    "setnx-get-del",
		Source:  "seed 001 version 1.0 (setIfAbsent with token; GET-compare then DEL)",
		Summary: "SET NX EX 10 with a token; release by GET, compare, DEL: not atomic",
		Lease:   10 * time.Second,
		Steps:   spinSteps,
		New: func(env Env, key string) Lock {
			return &setnxGetDel{env: env, key: key}
		},
	})
}

type setnxGetDel struct {
	env   Env
	key   string
	token string
}

func (l *setnxGetDel) Acquire(t *sim.Thread) (bool, error) {
	l.token = uuid(t) + t.Name
	r, err := t.Call(l.env.Master, "SET", l.key, l.token, "EX", seconds(l.env.Lease), "NX")
	if err != nil {
		return false, err
	}
	return r.Kind == '+' && r.Str == "OK", nil
}

func (l *setnxGetDel) Release(t *sim.Thread) (bool, error) {
	v, err := t.Call(l.env.Master, "GET", l.key)
	if err != nil {
		return false, err
	}
	if v.Kind != '$' || v.Str != l.token {
		return false, nil
	}
	r, err := t.Call(l.env.Master, "DEL", l.key)
	if err != nil {
		return false, err
	}
	return r.Int == 1, nil
}
