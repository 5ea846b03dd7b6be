package luafast

import "slices"

// The engine's tests need scripts with fast paths. The protocols own the
// real ones (and prove each equal to its script); these are test copies
// of four of them: Redisson 3.16's lock, unlock and renewal and the
// compare-and-delete release, enough to drive the engine's fast-path
// machinery (handing a run to the VM, replay, direct commands).
const (
	RedissonLock316 = "if (redis.call('exists', KEYS[1]) == 0) then " +
		"   redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"   redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"   return nil; " +
		"end; " +
		"if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then " +
		"   redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"   redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"   return nil; " +
		"end; " +
		"return redis.call('pttl', KEYS[1]);"

	RedissonUnlock316 = "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then " +
		"   return nil;" +
		"end; " +
		"local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); " +
		"if (counter > 0) then " +
		"   redis.call('pexpire', KEYS[1], ARGV[2]); " +
		"   return 0; " +
		"else " +
		"   redis.call('del', KEYS[1]); " +
		"   redis.call('publish', KEYS[2], ARGV[1]); " +
		"   return 1; " +
		"end; " +
		"return nil;"

	RedissonRenew316 = "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then " +
		"   redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"   return 1; " +
		"end; " +
		"return 0;"

	CompareAndDelete = "if redis.call('get', KEYS[1]) == ARGV[1] then " +
		"   return redis.call('del', KEYS[1]) " +
		"else " +
		"   return 0 " +
		"end"
)

// testScripts are the four with their fast paths.
var testScripts = []Script{
	NewScript(RedissonLock316, testLock),
	NewScript(RedissonUnlock316, testUnlock),
	NewScript(RedissonRenew316, testRenew),
	{Source: CompareAndDelete, FastPath: testCompareAndDelete}, // its SHA1 computed when needed
}

// NativeBodies returns the bodies of testScripts, sorted.
func NativeBodies() []string {
	var out []string
	for _, s := range testScripts {
		out = append(out, s.Source)
	}
	slices.Sort(out)
	return out
}

func testLock(x *ScriptRun) bool {
	if !x.Has(1, 2) {
		return false
	}
	key, lease, id := x.Keys()[0], x.Argv()[0], x.Argv()[1]
	r, ok := x.Call("EXISTS", key)
	if !ok {
		return false
	}
	if !r.Is(0) {
		if r, ok = x.Call("HEXISTS", key, id); !ok {
			return false
		}
		if !r.Is(1) {
			r, ok = x.Call("PTTL", key)
			return ok && r.IsInt() && x.ReturnInt(LuaInt(r.Int()))
		}
	}
	if _, ok = x.Call("HINCRBY", key, id, "1"); !ok {
		return false
	}
	_, ok = x.Call("PEXPIRE", key, lease)
	return ok && x.ReturnNil()
}

func testUnlock(x *ScriptRun) bool {
	if !x.Has(2, 3) {
		return false
	}
	key, channel, msg, lease, id := x.Keys()[0], x.Keys()[1], x.Argv()[0], x.Argv()[1], x.Argv()[2]
	r, ok := x.Call("HEXISTS", key, id)
	switch {
	case !ok:
		return false
	case r.Is(0):
		return x.ReturnNil()
	}
	counter, ok := x.Call("HINCRBY", key, id, "-1")
	if !ok || !counter.IsInt() {
		return false
	}
	if counter.Int() > 0 {
		_, ok = x.Call("PEXPIRE", key, lease)
		return ok && x.ReturnInt(0)
	}
	if _, ok = x.Call("DEL", key); !ok {
		return false
	}
	_, ok = x.Call("PUBLISH", channel, msg)
	return ok && x.ReturnInt(1)
}

func testRenew(x *ScriptRun) bool {
	if !x.Has(1, 2) {
		return false
	}
	key, lease, id := x.Keys()[0], x.Argv()[0], x.Argv()[1]
	r, ok := x.Call("HEXISTS", key, id)
	if !ok {
		return false
	}
	if !r.Is(1) {
		return x.ReturnInt(0)
	}
	_, ok = x.Call("PEXPIRE", key, lease)
	return ok && x.ReturnInt(1)
}

func testCompareAndDelete(x *ScriptRun) bool {
	if !x.Has(1, 1) {
		return false
	}
	r, ok := x.Call("GET", x.Keys()[0])
	switch {
	case !ok:
		return false
	case !r.Equals(x.Argv()[0]):
		return x.ReturnInt(0)
	}
	return x.ReturnCall("DEL", x.Keys()[0])
}
