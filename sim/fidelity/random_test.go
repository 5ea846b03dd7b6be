package fidelity

import (
	"flag"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// The random sequences use a fixed rapid seed and check count, and write
// no fail files, unless the command line sets them, so the suite's outcome
// does not change from run to run (a failure prints the -rapid.seed that
// replays it). Explore with, e.g.:
//
//	go test ./sim/fidelity -run Random -rapid.seed=0 -rapid.checks=5000
const (
	defaultRapidSeed   = "20260109"
	defaultRapidChecks = "2000"
)

// rapidDefaults sets rapid's seed and check count unless given on the
// command line. Call after flag.Parse.
func rapidDefaults() {
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for name, v := range map[string]string{
		"rapid.seed":       defaultRapidSeed,
		"rapid.checks":     defaultRapidChecks,
		"rapid.nofailfile": "true",
	} {
		if !set[name] && flag.Lookup(name) != nil {
			flag.Set(name, v)
		}
	}
}

// Pools the generator draws from: a few keys, so commands collide; values
// that are also hash fields, so compare-and-* scripts hit; TTLs in whole
// seconds of at least 10 s, so nothing expires while a sequence runs and
// TTL's rounding (deviation D2) does not show; plus invalid arguments.
var (
	genKeys    = []string{"lock", "lock", "lock2", "fence"}
	genIDs     = []string{"id1", "id2"}
	genValues  = []string{"id1", "id2", "bloqueado", "7", "-2", "x", ""}
	genMs      = []string{"10000", "30000", "30000", "60000", "100000"}
	genBadMs   = []string{"0", "-1", "x", "1.5"}
	genSec     = []string{"10", "60", "100"}
	genBadSec  = []string{"0", "-5", "x"}
	genIncr    = []string{"1", "1", "-1", "3", "x"}
	genOffsets = []string{"0", "-1", "1", "3", "-2", "100"}
	genChannel = []string{"redisson_lock__channel:{lock}", "chan"}
)

func pick(t *rapid.T, pool []string, label string) string {
	return rapid.SampledFrom(pool).Draw(t, label)
}

// ms draws a lease in ms, now and then an invalid one when bad.
func ms(t *rapid.T, bad bool) string {
	if bad && rapid.IntRange(0, 9).Draw(t, "badms?") == 0 {
		return pick(t, genBadMs, "badms")
	}
	return pick(t, genMs, "ms")
}

func sec(t *rapid.T, bad bool) string {
	if bad && rapid.IntRange(0, 9).Draw(t, "badsec?") == 0 {
		return pick(t, genBadSec, "badsec")
	}
	return pick(t, genSec, "sec")
}

// genCommand draws one command and how to compare its reply. bad is false
// inside MULTI: no invalid arguments then, since the sim rejects them at
// once where Redis queues them (deviation D6, pinned on its own).
func genCommand(t *rapid.T, p *pair, bad bool) (shape, []string) {
	k := pick(t, genKeys, "key")
	switch rapid.IntRange(0, 27).Draw(t, "cmd") {
	case 0, 1, 2:
		args := []string{"SET", k, pick(t, genValues, "value")}
		var opts [][]string
		// Not NX and XX together: the sim accepts it (deviation D9).
		switch rapid.IntRange(0, 4).Draw(t, "nx") {
		case 0, 1, 2:
			opts = append(opts, []string{"NX"})
		case 3:
			opts = append(opts, []string{"XX"})
		}
		switch rapid.IntRange(0, 6).Draw(t, "ex") {
		case 0, 1, 2:
			opts = append(opts, []string{"PX", ms(t, bad)})
		case 3, 4:
			opts = append(opts, []string{"EX", sec(t, bad)})
		case 5:
			if bad {
				opts = append(opts, []string{"PX", ms(t, bad)}, []string{"EX", sec(t, bad)})
			}
		}
		if len(opts) > 1 && rapid.Bool().Draw(t, "swap") {
			opts[0], opts[1] = opts[1], opts[0]
		}
		for _, o := range opts {
			args = append(args, o...)
		}
		return exact, args
	case 3, 4:
		return exact, []string{"GET", k}
	case 5:
		if rapid.Bool().Draw(t, "two") {
			return exact, []string{"DEL", k, pick(t, genKeys, "key2")}
		}
		return exact, []string{"DEL", k}
	case 6:
		if rapid.Bool().Draw(t, "two") {
			return exact, []string{"EXISTS", k, pick(t, genKeys, "key2")}
		}
		return exact, []string{"EXISTS", k}
	case 7:
		return exact, []string{"PEXPIRE", k, ms(t, bad)}
	case 8:
		return exact, []string{"EXPIRE", k, sec(t, bad)}
	case 9:
		return ttlMs, []string{"PTTL", k}
	case 10:
		return ttlSec, []string{"TTL", k}
	case 11:
		return exact, []string{"HINCRBY", k, pick(t, genIDs, "field"), incr(t, bad)}
	case 12:
		return exact, []string{"HEXISTS", k, pick(t, genIDs, "field")}
	case 13:
		args := []string{"HSET", k, pick(t, genIDs, "field"), pick(t, genValues, "value")}
		if rapid.IntRange(0, 3).Draw(t, "hset2") == 0 {
			args = append(args, pick(t, genIDs, "field2"), pick(t, genValues, "value2"))
		}
		return exact, args
	case 14:
		return exact, []string{"HGET", k, pick(t, genIDs, "field")}
	case 15:
		return exact, []string{"INCR", k}
	case 16:
		return exact, []string{"MSETNX", k, pick(t, genValues, "value"), pick(t, genKeys, "key2"), pick(t, genValues, "value2")}
	case 17:
		start, end := pick(t, genOffsets, "start"), pick(t, genOffsets, "end")
		a, _ := strconv.Atoi(start)
		b, _ := strconv.Atoi(end)
		if a < 0 && b < 0 && a > b {
			start, end = end, start // both negative, start after end: deviation D11
		}
		return exact, []string{"GETRANGE", k, start, end}
	case 18:
		if rapid.Bool().Draw(t, "two") {
			return exact, []string{"WATCH", k, pick(t, genKeys, "key2")}
		}
		return exact, []string{"WATCH", k}
	case 19:
		return exact, []string{"MULTI"}
	case 20:
		return exact, []string{"EXEC"}
	case 21:
		if !bad {
			// In MULTI, the sim unwatches at once, Redis at EXEC, after
			// checking the watched keys (deviation D7).
			return exact, []string{"DISCARD"}
		}
		return exact, []string{rapid.SampledFrom([]string{"UNWATCH", "DISCARD"}).Draw(t, "unwatch")}
	case 22, 23, 24:
		s := rapid.SampledFrom(scripts).Draw(t, "script")
		return s.reply, append([]string{"EVAL", s.src}, scriptArgs(t, s, bad)...)
	case 25:
		s := rapid.SampledFrom(scripts).Draw(t, "script")
		// EVALSHA only of a script both sides have cached or neither has:
		// real Redis caches a script EVAL ran even when it failed, the sim
		// only when it succeeded (deviation D5); else EVAL, as clients fall
		// back. In MULTI only of a script both know (an unknown one would
		// abort differently, D6).
		simKnows, realKnows := p.scriptKnown(sha(s.src))
		if simKnows != realKnows || !bad && !simKnows {
			return s.reply, append([]string{"EVAL", s.src}, scriptArgs(t, s, bad)...)
		}
		return s.reply, append([]string{"EVALSHA", sha(s.src)}, scriptArgs(t, s, bad)...)
	case 26:
		s := rapid.SampledFrom(scripts).Draw(t, "script")
		return exact, []string{"SCRIPT", "LOAD", s.src}
	default:
		return exact, []string{"PUBLISH", pick(t, genChannel, "channel"), pick(t, genValues, "message")}
	}
}

func incr(t *rapid.T, bad bool) string {
	if bad {
		return pick(t, genIncr, "incr")
	}
	return pick(t, genIncr[:len(genIncr)-1], "incr")
}

// scriptArgs draws numkeys, keys and args for s the way its protocol
// passes them.
func scriptArgs(t *rapid.T, s script, bad bool) []string {
	k := pick(t, genKeys, "skey")
	id := pick(t, genIDs, "id")
	args := []string{strconv.Itoa(s.nkeys), k}
	switch s.src {
	case redissonAcquire, seedRedissonAcquire, redissonRenew, seedRedissonRenew:
		return append(args, ms(t, bad), id)
	case redissonRelease, seedRedissonRelease:
		return append(args, pick(t, genChannel, "channel"), "0", ms(t, bad), id)
	case compareAndDelete, seedCompareAndDelete:
		return append(args, pick(t, genValues, "token"))
	case compareAndPexpire:
		return append(args, pick(t, genValues, "token"), ms(t, bad))
	case fencedAcquire:
		return append(args, pick(t, genKeys, "fencekey"), id, ms(t, bad))
	}
	panic("unknown script " + s.name)
}

// TestRandomSequences draws sequences of the commands and scripts the lock
// protocols send, on three connections, runs each on both sides, compares
// every reply, and the whole key state at the end.
func TestRandomSequences(t *testing.T) {
	srv := needRedis(t)
	t.Logf("comparing against %s", srv.describe())
	p := newPair(t, srv, 0)
	defer p.close()
	sequences, drawn := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		sequences++
		p.reset(rt, 1)
		n := rapid.IntRange(1, 60).Draw(rt, "length")
		for i := 0; i < n; i++ {
			conn := rapid.IntRange(1, 3).Draw(rt, "conn")
			_, inMulti := p.queued[conn]
			s, args := genCommand(rt, p, !inMulti)
			p.do(conn, s, args...)
			drawn++
		}
		p.state()
	})
	t.Logf("%d random sequences: %d drawn commands compared, %d commands in all with the key-state checks; error-wording normalisations by deviation: %v",
		sequences, drawn, p.commands, p.normalised)
}
