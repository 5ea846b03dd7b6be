package protocols

import (
	"time"

	"github.com/locksim/locksim/sim"
)

func init() {
	// Seed 001, "Versão 2.0": the acquisition of version 1.0 and a release
	// loop of optimistic transactions:
	//   while (true) {
	//     watch(LOCK_KEY);
	//     if (token.equals(get(LOCK_KEY))) {
	//       multi(); delete(LOCK_KEY); result = exec();
	//       if (result != null) break;
	//     } else { unwatch(); break; }
	//   }
	// Each thread sends its commands on its own connection, so its WATCH
	// state is its own (the sim keeps one connection per thread and node).
	register(Protocol{
		Name:    "setnx-watch-del",
		Source:  "seed 001 version 2.0 (setIfAbsent with token; WATCH/GET/MULTI/DEL/EXEC release loop)",
		Summary: "SET NX EX 10 with a token; release in a WATCH/MULTI/EXEC loop",
		Lease:   10 * time.Second,
		Steps:   spinSteps,
		New: func(env Env, key string) Lock {
			return &setnxWatchDel{get: setnxGetDel{env: env, key: key}}
		},
	})
}

type setnxWatchDel struct {
	get setnxGetDel // the acquisition is version 1.0's
}

func (l *setnxWatchDel) Acquire(t *sim.Thread) (bool, error) { return l.get.Acquire(t) }

func (l *setnxWatchDel) Release(t *sim.Thread) (bool, error) {
	node, key := l.get.env.Master, l.get.key
	for {
		if _, err := t.Call(node, "WATCH", key); err != nil {
			return false, err
		}
		v, err := t.Call(node, "GET", key)
		if err != nil {
			return false, err
		}
		if v.Kind != '$' || v.Str != l.get.token {
			if _, err := t.Call(node, "UNWATCH"); err != nil {
				return false, err
			}
			return false, nil
		}
		if _, err := t.Call(node, "MULTI"); err != nil {
			return false, err
		}
		if _, err := t.Call(node, "DEL", key); err != nil {
			return false, err
		}
		r, err := t.Call(node, "EXEC")
		if err != nil {
			return false, err
		}
		if !r.IsNil() {
			return len(r.Array) == 1 && r.Array[0].Int == 1, nil
		}
		t.Note(key, "EXEC returned nil: the watched key changed; retrying the release")
	}
}
