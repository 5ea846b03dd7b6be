package luafast

import (
	"slices"
	"strconv"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
)

// SetPreHook installs h as the server's pre-hook (server.SetPreHook),
// and lets the twins run their plainest nested commands on miniredis's
// keyspace directly instead of through Dispatch, which formats a reply
// per command and allocates twice for it. A direct command calls h
// first, as Dispatch would, and one h serves (returns true for) is done;
// h must not change the keyspace when it returns false (the plan read it
// before). Without a hook, every nested command goes through Dispatch.
func (e *Engine) SetPreHook(h server.Hook) {
	e.srv.SetPreHook(h)
	e.hook = h
}

// SetPublish lets a twin's PUBLISH channel message (with a pre-hook set)
// call publish instead of the pre-hook, and reply the subscriber count it
// returns: publish must do what the pre-hook does for that PUBLISH.
func (e *Engine) SetPublish(publish func(channel, msg string) int) { e.publish = publish }

// A direct command is a nested command a twin sends whose effect and
// reply the engine computes itself, with miniredis's exported keyspace
// functions, exactly as miniredis v2.40.0's command would. Its plan
// decides from args and the keyspace alone (nothing changed yet) whether
// the case is one it models; the plan's do applies it and returns the
// integer reply.
type directPlan struct {
	do func(db *miniredis.RedisDB, args []string, p directPlan) int
	n  int // a parsed argument (HINCRBY's delta, PEXPIRE's milliseconds)
}

// A planner decides whether a direct command models args (the name
// dropped) on db; lruSet says whether this run's commands already set the
// LRU clock of args[0] (see ScriptRun.lruKey).
type planner func(db *miniredis.RedisDB, args []string, lruSet bool) (directPlan, bool)

// directCmd is the plan of the command called name, nil if the engine
// does not serve it directly.
func directCmd(name string) planner {
	switch name {
	case "EXISTS":
		return planExists
	case "HEXISTS":
		return planHexists
	case "HINCRBY":
		return planHincrby
	case "PEXPIRE":
		return planPexpire
	case "PTTL":
		return planPTTL
	case "DEL":
		return planDel
	}
	return nil
}

// served says how runDirect served a call.
type served int8

const (
	notDirect   served = iota // nothing done: Dispatch must serve it
	byHook                    // the pre-hook wrote the reply, as Dispatch would let it
	directReply               // the reply is the integer runDirect returned
)

// runDirect serves x's current call (upper-case name first) directly if
// it is a case directCmd models, as miniredis would.
func (e *Engine) runDirect(x *ScriptRun) (int, served) {
	if e.hook == nil {
		return 0, notDirect
	}
	args := x.args
	if args[0] == "PUBLISH" && len(args) == 3 && e.publish != nil {
		return e.publish(args[1], args[2]), directReply
	}
	plan := directCmd(args[0])
	if plan == nil {
		return 0, notDirect
	}
	db := x.database()
	p, ok := plan(db, args[1:], x.lruSetOn(args[1:]))
	if !ok {
		return 0, notDirect
	}
	if e.hook(e.inner.peer, args[0], args[1:]...) {
		return 0, byHook
	}
	n := p.do(db, args[1:], p)
	if args[0] == "EXISTS" && len(args) == 2 && n == 1 {
		x.lruSet, x.lruKey = true, args[1]
	}
	return n, directReply
}

// lruSetOn reports whether this run set the LRU clock of args's key.
func (x *ScriptRun) lruSetOn(args []string) bool {
	return x.lruSet && len(args) > 0 && args[0] == x.lruKey
}

// database is miniredis's DB 0, looked up once a run: twins never change
// the inner connection's DB, and their commands never swap DBs.
func (x *ScriptRun) database() *miniredis.RedisDB {
	if x.db == nil {
		x.db = x.e.m.DB(0)
	}
	return x.db
}

// EXISTS key... db.Exists touches a key's LRU clock, as EXISTS does;
// db.Type, which the others read, does not, as they do not.
func planExists(_ *miniredis.RedisDB, args []string, _ bool) (directPlan, bool) {
	return directPlan{do: func(db *miniredis.RedisDB, args []string, _ directPlan) int {
		return count(args, db.Exists)
	}}, len(args) >= 1
}

// count is how many of keys f says true for, in order.
func count(keys []string, f func(string) bool) int {
	n := 0
	for _, k := range keys {
		if f(k) {
			n++
		}
	}
	return n
}

// HEXISTS key field, when the key is absent or a hash. HGet tells a
// present field by a non-empty value; else the hash's fields must, and
// HKeys, which reads them, touches the key's LRU clock as HEXISTS does
// not: only when this run has set that clock already (lruSet), which
// HKeys then sets to the time it holds.
func planHexists(db *miniredis.RedisDB, args []string, lruSet bool) (directPlan, bool) {
	if len(args) != 2 {
		return directPlan{}, false
	}
	switch db.Type(args[0]) {
	case "":
		return directPlan{do: reply0}, true
	case "hash":
		if db.HGet(args[0], args[1]) != "" {
			return directPlan{do: reply1}, true
		}
		if lruSet {
			return directPlan{do: hasField}, true
		}
	}
	return directPlan{}, false
}

// hasField is 1 if hash args[0] has the field args[1], else 0.
func hasField(db *miniredis.RedisDB, args []string, _ directPlan) int {
	fields, _ := db.HKeys(args[0])
	if _, ok := slices.BinarySearch(fields, args[1]); ok {
		return 1
	}
	return 0
}

func reply0(*miniredis.RedisDB, []string, directPlan) int { return 0 }
func reply1(*miniredis.RedisDB, []string, directPlan) int { return 1 }

// HINCRBY key field delta, when delta is an integer and the key absent,
// or a hash whose field holds an integer.
func planHincrby(db *miniredis.RedisDB, args []string, _ bool) (directPlan, bool) {
	delta, ok := intArg(args, 3, 2)
	if !ok {
		return directPlan{}, false
	}
	switch db.Type(args[0]) {
	case "":
	case "hash":
		if _, err := strconv.Atoi(db.HGet(args[0], args[1])); err != nil {
			return directPlan{}, false // also a missing field: HGet says ""
		}
	default:
		return directPlan{}, false
	}
	return directPlan{n: delta, do: func(db *miniredis.RedisDB, args []string, p directPlan) int {
		v, err := db.HIncr(args[0], args[1], p.n)
		if err != nil {
			panic("luafast: direct HINCRBY planned on a non-integer field")
		}
		return v
	}}, true
}

// PEXPIRE key ms, without options: 0 for an absent key; a TTL that is
// not positive (the key is deleted) goes through Dispatch.
func planPexpire(db *miniredis.RedisDB, args []string, _ bool) (directPlan, bool) {
	ms, ok := intArg(args, 2, 1)
	if !ok {
		return directPlan{}, false
	}
	if db.Type(args[0]) == "" {
		return directPlan{do: reply0}, true
	}
	if pexpireTTL(ms) <= 0 {
		return directPlan{}, false
	}
	return directPlan{n: ms, do: func(db *miniredis.RedisDB, args []string, p directPlan) int {
		db.SetTTL(args[0], pexpireTTL(p.n))
		return 1
	}}, true
}

// pexpireTTL is the TTL PEXPIRE sets for ms (as miniredis computes it).
func pexpireTTL(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }

// intArg is args[i] as an integer, when there are exactly n args.
func intArg(args []string, n, i int) (int, bool) {
	if len(args) != n {
		return 0, false
	}
	v, err := strconv.Atoi(args[i])
	return v, err == nil
}

// PTTL key: -2 for an absent key, -1 for one without a TTL.
func planPTTL(_ *miniredis.RedisDB, args []string, _ bool) (directPlan, bool) {
	return directPlan{do: func(db *miniredis.RedisDB, args []string, _ directPlan) int {
		if db.Type(args[0]) == "" {
			return -2
		}
		ttl := db.TTL(args[0]) // a key's TTL is never 0: it expired at 0
		if ttl == 0 {
			return -1
		}
		return int(ttl.Milliseconds())
	}}, len(args) == 1
}

// DEL key...
func planDel(_ *miniredis.RedisDB, args []string, _ bool) (directPlan, bool) {
	return directPlan{do: func(db *miniredis.RedisDB, args []string, _ directPlan) int {
		return count(args, db.Del)
	}}, len(args) >= 1
}
