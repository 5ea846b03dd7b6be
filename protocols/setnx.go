package protocols

import (
	"strconv"
	"time"

	"github.com/locksim/locksim/sim"
)

// The Lua compare-and-delete release (compareAndDelete, verbatim from
// seed 001, "Solução Efetiva") and its fast path are in compare_scripts.go.

func init() {
	// Seed 002, section 2: setIfAbsent(chaveTrava, "bloqueado", 60, SECONDS),
	// then stringRedisTemplate.delete(chaveTrava) in finally.
	register(Protocol{
		Name:    "setnx-del",
		Source:  "seed 002 section 2 (Spring Data Redis setIfAbsent + delete)",
		Summary: "SET NX EX 60 with a constant value; unconditional DEL in finally",
		Lease:   60 * time.Second,
		Steps:   spinSteps,
		New: func(env Env, key string) Lock {
			return &setnxDel{env: env, key: key}
		},
	})
	// Seed 001, "Solução Efetiva": token = UUID + thread name,
	// setIfAbsent(LOCK_KEY, token, 10 s), Lua compare-and-delete.
	register(Protocol{
		Name:    "setnx-lua-del",
		Source:  "seed 001 (setIfAbsent with token, Lua compare-and-delete release)",
		Summary: "SET NX EX 10 with a random token; Lua GET-compare-DEL release",
		Lease:   10 * time.Second,
		Steps:   spinSteps,
		Scripts: []sim.Script{compareAndDeleteScript},
		New: func(env Env, key string) Lock {
			return &setnxLuaDel{env: env, key: key}
		},
	})
}

type setnxDel struct {
	env Env
	key string
}

func (l *setnxDel) Acquire(t *sim.Thread) (bool, error) {
	r, err := t.Call(l.env.Master, "SET", l.key, "bloqueado", "EX", seconds(l.env.Lease), "NX")
	if err != nil {
		return false, err
	}
	return r.Kind == '+' && r.Str == "OK", nil
}

func (l *setnxDel) Release(t *sim.Thread) (bool, error) {
	r, err := t.Call(l.env.Master, "DEL", l.key)
	if err != nil {
		return false, err
	}
	return r.Int == 1, nil
}

type setnxLuaDel struct {
	env   Env
	key   string
	token string
}

func (l *setnxLuaDel) Acquire(t *sim.Thread) (bool, error) {
	l.token = uuid(t) + t.Name // UUID.randomUUID().toString() + Thread.currentThread().getName()
	r, err := t.Call(l.env.Master, "SET", l.key, l.token, "EX", seconds(l.env.Lease), "NX")
	if err != nil {
		return false, err
	}
	return r.Kind == '+' && r.Str == "OK", nil
}

func (l *setnxLuaDel) Release(t *sim.Thread) (bool, error) {
	r, err := t.Call(l.env.Master, "EVAL", compareAndDelete, "1", l.key, l.token)
	if err != nil {
		return false, err
	}
	return r.Kind == ':' && r.Int == 1, nil
}

// seconds renders d for EX, rounding up so that a lease is never shortened.
func seconds(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return strconv.FormatInt(s, 10)
}
