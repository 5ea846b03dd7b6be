package luafast

import "strconv"

// bsm/redislock's scripts, as protocols/redislock_go.go sends them (the
// tag is named there). The twins model one key (the protocol's case);
// other counts run on the VM.
const (
	RedislockObtain = `-- obtain.lua: arguments => [value, tokenLen, ttl]
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

	RedislockRelease = `-- release.lua: => Arguments: [value]
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

	RedislockRefresh = `-- refresh.lua: => Arguments: [value, ttl]
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

func init() {
	register(RedislockObtain, redislockObtainOne)
	register(RedislockRelease, func(x *nativeRun) bool { return redislockIfValue(x, "DEL") })
	register(RedislockRefresh, func(x *nativeRun) bool { return redislockIfValue(x, "PEXPIRE") })
}

func redislockObtainOne(x *nativeRun) bool {
	if len(x.keys) != 1 || !x.has(1, 3) {
		return false
	}
	key, value := x.keys[0], x.argv[0]
	r, ok := x.call("MSETNX", key, value)
	if !ok {
		return false
	}
	if !r.is(1) {
		// canOverrideKeys: the key's first offset bytes against value's.
		offset, ok := canonicalInt(x.argv[1])
		if !ok || offset < 1 || offset > len(value) {
			return false // string.sub's other cases, tonumber's other results
		}
		prefix, ok := x.call("GETRANGE", key, "0", strconv.Itoa(offset-1))
		switch {
		case !ok:
			return false
		case !prefix.equals(value[:offset]):
			return x.returnNil()
		}
		if _, ok = x.call("MSET", key, value); !ok {
			return false
		}
	}
	_, ok = x.call("PEXPIRE", key, x.argv[2])
	return ok && x.returnStatus("OK")
}

// redislockIfValue is the release (DEL) and refresh (PEXPIRE ARGV[2])
// scripts: false unless the key holds ARGV[1].
func redislockIfValue(x *nativeRun, cmd string) bool {
	nArgv := 1
	if cmd == "PEXPIRE" {
		nArgv = 2
	}
	if len(x.keys) != 1 || !x.has(1, nArgv) {
		return false
	}
	key := x.keys[0]
	r, ok := x.call("MGET", key)
	if !ok || r.kind != '*' {
		return false
	}
	if !r.first().equals(x.argv[0]) {
		return x.returnNil()
	}
	if cmd == "PEXPIRE" {
		_, ok = x.call(cmd, key, x.argv[1])
	} else {
		_, ok = x.call(cmd, key)
	}
	return ok && x.returnStatus("OK")
}
