package protocols

import (
	"strconv"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/luafast"
)

// bsm/redislock's scripts, verbatim, as redislock_go.go sends them (the
// tag is named there), and their fast paths, which model one key (the
// protocol's case); other counts run on the VM.
const (
	redislockObtain = `-- obtain.lua: arguments => [value, tokenLen, ttl]
-- Obtain.lua try to set provided keys's with value and ttl if they do not exists.
-- Keys can be overriden if they already exists and the correct value+tokenLen is provided. 

local function pexpire(ttl)
	-- Update keys ttls.
	for _, key in ipairs(KEYS) do
		redis.call("pexpire", key, ttl)
	end
end

-- canOverrideLock check either or not the provided token match
-- previously set lock's tokens.
local function canOverrideKeys() 
	local offset = tonumber(ARGV[2])

	for _, key in ipairs(KEYS) do
		if redis.call("getrange", key, 0, offset-1) ~= string.sub(ARGV[1], 1, offset) then
			return false
		end
	end
	return true
end

-- Prepare mset arguments.
local setArgs = {}
for _, key in ipairs(KEYS) do
	table.insert(setArgs, key)
	table.insert(setArgs, ARGV[1])
end

if redis.call("msetnx", unpack(setArgs)) ~= 1 then
	if canOverrideKeys() == false then
		return false
	end
	redis.call("mset", unpack(setArgs))
end

pexpire(ARGV[3])
return redis.status_reply("OK")`

	redislockRelease = `-- release.lua: => Arguments: [value]
-- Release.lua deletes provided keys if all their values match the input. 

-- Check all keys values matches provided input.
local values = redis.call("mget", unpack(KEYS))
for i, _ in ipairs(KEYS) do
	if values[i] ~= ARGV[1] then
		return false
	end
end

-- Delete keys.
redis.call("del", unpack(KEYS))

return redis.status_reply("OK")`

	redislockRefresh = `-- refresh.lua: => Arguments: [value, ttl]
-- refresh.lua refreshes provided keys's ttls if all their values match the input. 

-- Check all keys values matches provided input.
local values = redis.call("mget", unpack(KEYS))
for i, _ in ipairs(KEYS) do
	if values[i] ~= ARGV[1] then
		return false
	end
end

-- Update keys ttls.
for _, key in ipairs(KEYS) do
	redis.call("pexpire", key, ARGV[2]) 
end

return redis.status_reply("OK")`
)

// redislockScripts are the scripts' fast paths.
var redislockScripts = []sim.Script{
	luafast.NewScript(redislockObtain, redislockObtainOne),
	luafast.NewScript(redislockRelease, func(x *luafast.ScriptRun) bool { return redislockIfValue(x, "DEL") }),
	luafast.NewScript(redislockRefresh, func(x *luafast.ScriptRun) bool { return redislockIfValue(x, "PEXPIRE") }),
}

func redislockObtainOne(x *luafast.ScriptRun) bool {
	if len(x.Keys()) != 1 || !x.Has(1, 3) {
		return false
	}
	key, value := x.Keys()[0], x.Argv()[0]
	r, ok := x.Call("MSETNX", key, value)
	if !ok {
		return false
	}
	if !r.Is(1) {
		// canOverrideKeys: the key's first offset bytes against value's.
		offset, ok := canonicalInt(x.Argv()[1])
		if !ok || offset < 1 || offset > len(value) {
			return false // string.sub's other cases, tonumber's other results
		}
		prefix, ok := x.Call("GETRANGE", key, "0", strconv.Itoa(offset-1))
		switch {
		case !ok:
			return false
		case !prefix.Equals(value[:offset]):
			return x.ReturnNil()
		}
		if _, ok = x.Call("MSET", key, value); !ok {
			return false
		}
	}
	_, ok = x.Call("PEXPIRE", key, x.Argv()[2])
	return ok && x.ReturnStatus("OK")
}

// redislockIfValue is the release (DEL) and refresh (PEXPIRE ARGV[2])
// scripts: false unless the key holds ARGV[1].
func redislockIfValue(x *luafast.ScriptRun, cmd string) bool {
	nArgv := 1
	if cmd == "PEXPIRE" {
		nArgv = 2
	}
	if len(x.Keys()) != 1 || !x.Has(1, nArgv) {
		return false
	}
	key := x.Keys()[0]
	r, ok := x.Call("MGET", key)
	if !ok || !r.IsArray() {
		return false
	}
	if !r.First().Equals(x.Argv()[0]) {
		return x.ReturnNil()
	}
	if cmd == "PEXPIRE" {
		_, ok = x.Call(cmd, key, x.Argv()[1])
	} else {
		_, ok = x.Call(cmd, key)
	}
	return ok && x.ReturnStatus("OK")
}
