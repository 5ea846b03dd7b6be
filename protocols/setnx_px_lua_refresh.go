package protocols

import (
	"time"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/luafast"
)

// A hand-rolled lease lock with a refresh, the shape many services write
// for themselves: SET key token NX PX lease to acquire; while it holds the
// lock a refresher thread runs, every lease/3, a Lua script that extends
// the lease only if the key still holds the client's token; release is
// the Lua compare-and-delete. The refresher stops at the release, or when
// a refresh answers 0 (the key is gone or someone else's) or fails.

// setnxRefresh: KEYS[1] the lock, ARGV[1] the token, ARGV[2] the lease
// in ms. 1 when extended, 0 when the key is not the caller's.
const setnxRefresh = `if redis.call("get", KEYS[1]) == ARGV[1] then
	return redis.call("pexpire", KEYS[1], ARGV[2])
end
return 0`

// setnxRefreshFast is setnxRefresh's fast path: the same commands in the
// same order, the same reply. Anything else (an error reply, a short
// KEYS or ARGV) is handed to the Lua VM by returning false.
func setnxRefreshFast(x *luafast.ScriptRun) bool {
	if !x.Has(1, 2) {
		return false
	}
	key, token, lease := x.Keys()[0], x.Argv()[0], x.Argv()[1]
	r, ok := x.Call("GET", key)
	switch {
	case !ok:
		return false
	case !r.Equals(token):
		return x.ReturnInt(0)
	}
	return x.ReturnCall("PEXPIRE", key, lease)
}

func init() {
	register(Protocol{
		Name:    "setnx-px-lua-refresh",
		Source:  "a hand-rolled lease lock: SET NX PX with a token, Lua compare-and-PEXPIRE refresh, Lua compare-and-delete release",
		Summary: "SET NX PX 10 s with a token; a refresher re-PEXPIREs its own key by Lua every lease/3; Lua GET-compare-DEL release",
		Lease:   10 * time.Second,
		Renews:  true,
		Steps:   spinSteps,
		Scripts: []sim.Script{
			luafast.NewScript(setnxRefresh, setnxRefreshFast),
			compareAndDeleteScript,
		},
		New: func(env Env, key string) Lock { return &setnxPXRefresh{env: env, key: key} },
	})
}

type setnxPXRefresh struct {
	env     Env
	key     string
	token   string
	holding *bool // the current hold's flag, which its refresher reads
}

func (l *setnxPXRefresh) Acquire(t *sim.Thread) (bool, error) {
	token := uuid(t) + t.Name
	r, err := t.Call(l.env.Master, "SET", l.key, token, "PX", ms(l.env.Lease), "NX")
	if err != nil || r.Kind != '+' || r.Str != "OK" {
		return false, err
	}
	holding := true
	l.token, l.holding = token, &holding
	node, key, lease := l.env.Master, l.key, l.env.Lease
	t.Go(t.Name+"-refresher", func(d *sim.Thread) {
		for {
			d.Sleep(lease / 3)
			if !holding {
				return
			}
			op := d.Invoke(model.OpRenew, key, token)
			r, err := d.Call(node, "EVAL", setnxRefresh, "1", key, token, ms(lease))
			d.Return(op, result(err == nil && r.Int == 1, err, model.ResNotOwner))
			if err != nil || r.Int != 1 {
				return
			}
		}
	})
	return true, nil
}

func (l *setnxPXRefresh) Release(t *sim.Thread) (bool, error) {
	if l.holding != nil {
		*l.holding = false
	}
	r, err := t.Call(l.env.Master, "EVAL", compareAndDelete, "1", l.key, l.token)
	if err != nil {
		return false, err
	}
	return r.Kind == ':' && r.Int == 1, nil
}
