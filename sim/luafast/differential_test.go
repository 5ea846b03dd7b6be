package luafast

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"
)

var (
	keyPool   = []string{"lock", "lock2", "k1", "h1", "chan"}
	idPool    = []string{"u1:1", "u1:2", "u2:7"}
	leasePool = []string{"30000", "10000", "1500", "1", "0", "-5", "abc"}
	valPool   = []string{"v1", "v2", "10", "-3", "x y", "", "u1:1"}
	intPool   = []string{"1", "-1", "5", "0", "x", "9223372036854775807"}
)

// allScripts is every script the generator may run, for SCRIPT LOAD/EVALSHA.
var allScripts = append(append([]string{redissonAcquire, redissonRelease, redissonRenew, compareAndDel, errorRespScript},
	miscScripts...), NativeBodies()...)

func draw(t *rapid.T, pool []string, label string) string {
	return rapid.SampledFrom(pool).Draw(t, label)
}

// scriptCall builds EVAL or EVALSHA (sometimes the _RO variant) for src.
func scriptCall(t *rapid.T, src string, keysAndArgs ...string) []string {
	cmd := rapid.SampledFrom([]string{"EVAL", "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "eval"}).Draw(t, "evalcmd")
	body := src
	if strings.HasPrefix(strings.ToUpper(cmd), "EVALSHA") {
		body = newScript(src).sha
	}
	return append([]string{cmd, body}, keysAndArgs...)
}

// genCommand draws one command for both nodes.
func genCommand(t *rapid.T) []string {
	key := func() string { return draw(t, keyPool, "key") }
	switch rapid.IntRange(0, 9).Draw(t, "kind") {
	case 0, 1, 2: // lock scripts: Redisson's, compare-and-delete, the native twins'
		switch rapid.IntRange(0, 5).Draw(t, "redisson") {
		case 0:
			return scriptCall(t, redissonAcquire, "1", key(), draw(t, leasePool, "lease"), draw(t, idPool, "id"))
		case 1:
			return scriptCall(t, redissonRelease, "2", key(), "chan", "0", draw(t, leasePool, "lease"), draw(t, idPool, "id"))
		case 2:
			return scriptCall(t, redissonRenew, "1", key(), draw(t, leasePool, "lease"), draw(t, idPool, "id"))
		case 3:
			return scriptCall(t, compareAndDel, "1", key(), draw(t, valPool, "val"))
		default:
			return genTwinCall(t)
		}
	case 3, 4, 5: // plain commands
		if rapid.IntRange(0, 3).Draw(t, "twinsetup") == 0 {
			return genTwinSetup(t)
		}
		return genPlain(t, key)
	case 6, 7: // miscellaneous scripts with random keys and args
		src := rapid.SampledFrom(miscScripts).Draw(t, "misc")
		nk := rapid.IntRange(0, 2).Draw(t, "numkeys")
		args := []string{strconv.Itoa(nk)}
		for i := 0; i < nk; i++ {
			args = append(args, key())
		}
		for i := rapid.IntRange(0, 2).Draw(t, "nargs"); i > 0; i-- {
			args = append(args, draw(t, valPool, "arg"))
		}
		return scriptCall(t, src, args...)
	case 8: // SCRIPT subcommands
		src := rapid.SampledFrom(allScripts).Draw(t, "src")
		sha := newScript(src).sha
		return rapid.SampledFrom([][]string{
			{"SCRIPT", "LOAD", src},
			{"SCRIPT", "load", src},
			{"SCRIPT", "LOAD", "return ("},
			{"SCRIPT", "LOAD"},
			{"SCRIPT", "EXISTS", sha, newScript(redissonAcquire).sha, "nope"},
			{"SCRIPT", "EXISTS"},
			{"SCRIPT", "FLUSH"},
			{"SCRIPT", "FLUSH", "ASYNC"},
			{"SCRIPT", "FLUSH", "bogus"},
			{"SCRIPT", "bogus"},
			{"SCRIPT"},
			{"EVALSHA", sha, "0"},
			{"EVALSHA", strings.ToUpper(sha), "0"},
		}).Draw(t, "script")
	default: // argument errors
		return rapid.SampledFrom([][]string{
			{"EVAL", "return 1"},
			{"EVAL"},
			{"EVALSHA", "abc"},
			{"EVAL", "return 1", "-1"},
			{"EVAL", "return 1", "x"},
			{"EVAL", "return 1", " 1", "a"},
			{"EVAL", "return 1", "3", "a", "b"},
			{"EVAL", "return (", "x"},
			{"EVAL", "return (", "0"},
			{"EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"},
			{"EVALSHA_RO", "ffffffffffffffffffffffffffffffffffffffff", "1", "k1"},
			{"EVAL", errorRespScript, "0"},
		}).Draw(t, "argerr")
	}
}

func genPlain(t *rapid.T, key func() string) []string {
	k := key()
	switch rapid.IntRange(0, 11).Draw(t, "plain") {
	case 0:
		c := []string{"SET", k, draw(t, valPool, "val")}
		if rapid.Bool().Draw(t, "nx") {
			c = append(c, "NX")
		}
		switch rapid.IntRange(0, 2).Draw(t, "ttl") {
		case 1:
			c = append(c, "PX", draw(t, leasePool, "px"))
		case 2:
			c = append(c, "EX", draw(t, []string{"1", "30", "0"}, "ex"))
		}
		return c
	case 1:
		return []string{"GET", k}
	case 2:
		return []string{"DEL", k, key()}
	case 3:
		return []string{"EXISTS", k, key()}
	case 4:
		return []string{"PEXPIRE", k, draw(t, leasePool, "ms")}
	case 5:
		return []string{"PTTL", k}
	case 6:
		return []string{"HINCRBY", k, draw(t, idPool, "field"), draw(t, intPool, "incr")}
	case 7:
		return []string{"HEXISTS", k, draw(t, idPool, "field")}
	case 8:
		return []string{"HSET", k, draw(t, idPool, "field"), draw(t, valPool, "val")}
	case 9:
		return []string{"INCR", k}
	case 10:
		return []string{"MSETNX", k, draw(t, valPool, "val"), key(), draw(t, valPool, "val")}
	default:
		return []string{"GETRANGE", k, draw(t, intPool, "start"), draw(t, intPool, "end")}
	}
}

// TestDifferential runs random command sequences against miniredis's own
// scripting and against the Engine, comparing raw replies, the final key
// state and the PUBLISH commands the pre-hook saw.
func TestDifferential(t *testing.T) {
	maxLen := 400
	if testing.Short() {
		maxLen = 100
	} else if raceEnabled {
		maxLen = 200
	}
	var cases, scripts atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		ref, eng := newNode(rt, false), newNode(rt, true)
		var hist []string
		n := rapid.IntRange(maxLen/2, maxLen).Draw(rt, "len")
		for i := 0; i < n; i++ {
			if rapid.IntRange(0, 7).Draw(rt, "ff") == 0 {
				d := time.Duration(rapid.SampledFrom([]int{1, 500, 1499, 1500, 10000, 30001}).Draw(rt, "ms")) * time.Millisecond
				ref.fastForward(d)
				eng.fastForward(d)
				hist = append(hist, fmt.Sprintf("FastForward(%v)", d))
				continue
			}
			cmd := genCommand(rt)
			hist = append(hist, fmt.Sprintf("%q", cmd))
			a, b := ref.do(cmd...), eng.do(cmd...)
			cases.Add(1)
			if c := strings.ToUpper(cmd[0]); strings.HasPrefix(c, "EVAL") {
				scripts.Add(1)
			}
			if a != b {
				rt.Fatalf("reply mismatch for %q\nminiredis: %q\nengine:    %q\nhistory:\n%s", cmd, a, b, strings.Join(hist, "\n"))
			}
		}
		if a, b := ref.state(), eng.state(); a != b {
			rt.Fatalf("state mismatch\nminiredis:\n%s\nengine:\n%s\nhistory:\n%s", a, b, strings.Join(hist, "\n"))
		}
		if a, b := strings.Join(ref.publish, "|"), strings.Join(eng.publish, "|"); a != b {
			rt.Fatalf("publish mismatch\nminiredis: %s\nengine:    %s", a, b)
		}
	})
	t.Logf("%d differential commands (%d EVAL*)", cases.Load(), scripts.Load())
}
