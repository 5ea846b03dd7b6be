package sim

import (
	"strconv"
	"strings"
)

// commandInfo is what the node knows of a command, after Redis 7's
// COMMAND table: its flags, and its keys: args[first], args[first+step],
// ... through args[last] (negative: from the end), or with numkeys, the
// keys args[numkeys] counts after it; first and numkeys 0: no keys.
type commandInfo struct {
	flags                      cmdFlag
	first, last, step, numkeys int8
}

// cmdFlag is one property of a command.
type cmdFlag uint16

const (
	cmdRead        cmdFlag = 1 << iota // reads data (Redis: readonly)
	cmdWrite                           // may change data: Redis's write, and EVAL, EVALSHA, EXEC, which run commands that may
	cmdScript                          // runs a script (EVAL and its kin)
	cmdScriptBody                      // args[1] is a script body, which the trace names by its SHA1
	cmdScriptCache                     // SCRIPT: served, like the script commands, by the script engine
	cmdTx                              // transaction control: MULTI, EXEC, DISCARD, WATCH, UNWATCH
	cmdPubSub                          // publish or subscribe
	cmdBlocking                        // may block its connection (Redis: blocking)
	cmdAdmin                           // server or connection state, no data
	cmdRandom                          // draws from miniredis's random source, which the node seeds first
	cmdSwapsDB                         // may replace the database the node reads
	cmdRefused                         // never handed to miniredis, which would start goroutines or real timers (or exit)
	cmdNoSubject                       // the trace names no key for it: its arguments are no key, channel or section
)

// unknownCommand is the view of a command not in the table: it may write its first argument.
var unknownCommand = commandInfo{cmdWrite, 1, 1, 1, 0}

// commandGroups are the commands the node serves, grouped by their view: TestCommandTable
// holds every command miniredis registers (so every one a protocol can send) to an entry.
var commandGroups = []struct {
	info  commandInfo
	names string
}{
	{commandInfo{cmdRead, 1, 1, 1, 0}, "BITCOUNT BITPOS DUMP EXPIRETIME GEODIST GEOPOS GEORADIUSBYMEMBER_RO " +
		"GEORADIUS_RO GEOSEARCH GET GETBIT GETRANGE HEXISTS HGET HGETALL HKEYS HLEN HMGET HPTTL HSCAN " +
		"HSTRLEN HTTL HVALS LINDEX LLEN LPOS LRANGE PEXPIRETIME PTTL SCARD SISMEMBER SMEMBERS SMISMEMBER " +
		"SSCAN STRLEN TTL TYPE XLEN XPENDING XRANGE XREVRANGE ZCARD ZCOUNT ZLEXCOUNT ZMSCORE ZRANGE " +
		"ZRANGEBYLEX ZRANGEBYSCORE ZRANK ZREVRANGE ZREVRANGEBYLEX ZREVRANGEBYSCORE ZREVRANK ZSCAN ZSCORE"},
	{commandInfo{cmdRead | cmdRandom, 1, 1, 1, 0}, "HRANDFIELD SRANDMEMBER ZRANDMEMBER"},
	{commandInfo{cmdRead, 1, -1, 1, 0}, "EXISTS MGET PFCOUNT SDIFF SINTER SUNION TOUCH"},
	{commandInfo{flags: cmdRead, numkeys: 1}, "SINTERCARD ZINTER ZUNION"},
	{commandInfo{flags: cmdRead}, "DBSIZE KEYS SCAN"},
	{commandInfo{flags: cmdRead | cmdRefused}, "RANDOMKEY"},
	{commandInfo{flags: cmdRead | cmdBlocking | cmdRefused}, "XREAD"}, // keys after STREAMS
	// ZINTERSTORE, ZUNIONSTORE: the destination; the keys they read follow numkeys at args[2].
	{commandInfo{cmdWrite, 1, 1, 1, 0}, "APPEND DECR DECRBY DELEX EXPIRE EXPIREAT GEOADD GEORADIUS " +
		"GEORADIUSBYMEMBER GETDEL GETEX GETSET HDEL HEXPIRE HINCRBY HINCRBYFLOAT HMSET HPERSIST HSET " +
		"HSETEX HSETNX INCR INCRBY INCRBYFLOAT LINSERT LPOP LPUSH LPUSHX LREM LSET LTRIM MOVE PERSIST " +
		"PEXPIRE PEXPIREAT PFADD PSETEX RESTORE RPOP RPUSH RPUSHX SADD SET SETBIT SETEX SETNX SETRANGE " +
		"SREM XACK XADD XAUTOCLAIM XCLAIM XDEL XTRIM ZADD ZINCRBY ZINTERSTORE ZPOPMAX ZPOPMIN ZREM " +
		"ZREMRANGEBYLEX ZREMRANGEBYRANK ZREMRANGEBYSCORE ZUNIONSTORE"},
	{commandInfo{cmdWrite | cmdRandom, 1, 1, 1, 0}, "SPOP"},
	{commandInfo{cmdWrite, 1, 2, 1, 0}, "COPY LMOVE RENAME RENAMENX RPOPLPUSH SMOVE"},
	{commandInfo{cmdWrite, 1, -1, 1, 0}, "DEL PFMERGE SDIFFSTORE SINTERSTORE SUNIONSTORE UNLINK"},
	{commandInfo{cmdWrite, 1, -1, 2, 0}, "MSET MSETNX"},
	{commandInfo{cmdWrite, 2, -1, 1, 0}, "BITOP"},
	{commandInfo{cmdWrite, 2, 2, 1, 0}, "XGROUP"},
	{commandInfo{flags: cmdWrite, numkeys: 1}, "LMPOP ZMPOP"},
	{commandInfo{flags: cmdWrite}, "FLUSHALL FLUSHDB"},
	{commandInfo{flags: cmdWrite | cmdSwapsDB}, "SWAPDB"},
	{commandInfo{cmdWrite | cmdBlocking | cmdRefused, 1, -2, 1, 0}, "BLPOP BRPOP BZPOPMAX BZPOPMIN"},
	{commandInfo{cmdWrite | cmdBlocking | cmdRefused, 1, 2, 1, 0}, "BLMOVE BRPOPLPUSH"},
	{commandInfo{flags: cmdWrite | cmdBlocking | cmdRefused, numkeys: 2}, "BZMPOP"},
	{commandInfo{flags: cmdWrite | cmdBlocking | cmdRefused}, "XREADGROUP"}, // keys after STREAMS
	{commandInfo{flags: cmdScript | cmdWrite | cmdScriptBody, numkeys: 2}, "EVAL"},
	{commandInfo{flags: cmdScript | cmdWrite, numkeys: 2}, "EVALSHA"},
	{commandInfo{flags: cmdScript | cmdRead | cmdScriptBody, numkeys: 2}, "EVAL_RO"},
	{commandInfo{flags: cmdScript | cmdRead, numkeys: 2}, "EVALSHA_RO"},
	{commandInfo{flags: cmdScriptCache | cmdNoSubject}, "SCRIPT"},
	{commandInfo{flags: cmdTx | cmdNoSubject}, "MULTI DISCARD UNWATCH"},
	{commandInfo{flags: cmdTx | cmdWrite | cmdNoSubject}, "EXEC"},
	{commandInfo{cmdTx, 1, -1, 1, 0}, "WATCH"},
	{commandInfo{flags: cmdPubSub}, "PUBLISH"},
	{commandInfo{flags: cmdPubSub | cmdRefused}, "SUBSCRIBE PSUBSCRIBE UNSUBSCRIBE PUNSUBSCRIBE"},
	{commandInfo{flags: cmdAdmin}, "ECHO INFO TIME"},
	{commandInfo{flags: cmdAdmin | cmdNoSubject}, "PING WAIT"},
	{commandInfo{flags: cmdAdmin | cmdRefused}, "DEBUG SHUTDOWN"},
	// No data commands in Redis, but not read-only in miniredis, so the node has always counted them as
	// writes (a replica refuses them with READONLY): kept, so that runs do not change.
	{commandInfo{cmdAdmin | cmdWrite, 1, 1, 1, 0}, "AUTH CLIENT CLUSTER COMMAND HELLO MEMORY OBJECT PUBSUB QUIT SELECT XINFO"},
}

// commands is commandGroups by name, made once and never changed.
var commands = func() map[string]commandInfo {
	m := map[string]commandInfo{}
	for _, g := range commandGroups {
		for _, name := range strings.Fields(g.names) {
			m[name] = g.info // TestCommandTable: no name in two groups
		}
	}
	return m
}()

// commandCache looks commands up in the table through the first names it
// was asked for: mostly the callers' constants, whose strings compare by
// pointer, so a short scan beats the map's hashing.
type commandCache struct {
	names [16]string
	infos [16]commandInfo
	n     int
}

// lookup is the view of the command called cmd (upper case).
func (c *commandCache) lookup(cmd string) commandInfo {
	for i, name := range c.names[:c.n] {
		if name == cmd {
			return c.infos[i]
		}
	}
	info, ok := commands[cmd]
	if !ok {
		info = unknownCommand
	}
	if c.n < len(c.names) {
		c.names[c.n], c.infos[c.n] = cmd, info
		c.n++
	}
	return info
}

// keys lists the keys in args, a command's whole argument list; a slice
// of args unless they are spaced out (MSET's).
func (c commandInfo) keys(args []string) []string {
	first, last := int(c.first), int(c.last)
	if at := int(c.numkeys); at > 0 {
		if at >= len(args) {
			return nil
		}
		nk, _ := strconv.Atoi(args[at]) // 0 if not a number
		if first, last = at+1, at+nk; nk <= 0 || last >= len(args) {
			return nil
		}
	}
	if last < 0 {
		last += len(args)
	}
	if last = min(last, len(args)-1); first == 0 || last < first {
		return nil
	}
	if c.step <= 1 {
		return args[first : last+1]
	}
	var keys []string
	for i := first; i <= last; i += int(c.step) {
		keys = append(keys, args[i])
	}
	return keys
}

// subject is the key the trace names for the command args: its first
// key, else its first argument (a channel, a section), if it has one.
func (c commandInfo) subject(args []string) string {
	at := max(int(c.first), 1)
	if c.numkeys > 0 {
		at = int(c.numkeys) + 1
	}
	if at >= len(args) || c.flags&cmdNoSubject != 0 || (c.numkeys > 0 && args[at-1] == "0") {
		return ""
	}
	return args[at]
}
