package luafast

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestDirectCommandsMatchMiniredis proves the six commands the engine
// serves directly (direct.go: EXISTS, HEXISTS, HINCRBY, PEXPIRE, PTTL,
// DEL) equal to miniredis v2.40.0's own: two nodes start from the same
// generated keyspace; one serves each command through its plan when the
// plan models the case, the other through miniredis's Dispatch. Replies,
// keyspaces (values, TTLs) and LRU clocks must stay equal. Commands come
// in bursts, each at one instant as inside a script, with the LRU
// bookkeeping runDirect keeps (an EXISTS that found its key).
func TestDirectCommandsMatchMiniredis(t *testing.T) {
	keys := []string{"k", "k", "h", "s", "l"}
	fields := []string{"f", "f", "g", "u1:1"}
	ints := []string{"1", "-1", "0", "5", "30000", "1500", "-5", "abc", "1.5", "", "9223372036854775807"}
	directed := map[string]int{}
	rapid.Check(t, func(rt *rapid.T) {
		a, b := newNode(rt, false), newNode(rt, false)
		both := func(args ...string) {
			if x, y := a.do(args...), b.do(args...); x != y {
				rt.Fatalf("setup %q: %q vs %q", args, x, y)
			}
		}
		var hist []string
		for burst := rapid.IntRange(1, 8).Draw(rt, "bursts"); burst > 0; burst-- {
			// The keyspace between bursts.
			for i := rapid.IntRange(0, 4).Draw(rt, "setups"); i > 0; i-- {
				k := rapid.SampledFrom(keys).Draw(rt, "key")
				cmd := rapid.SampledFrom([][]string{
					{"SET", k, rapid.SampledFrom(ints).Draw(rt, "v")},
					{"HSET", k, rapid.SampledFrom(fields).Draw(rt, "f"), rapid.SampledFrom(ints).Draw(rt, "hv")},
					{"HSET", k, rapid.SampledFrom(fields).Draw(rt, "f"), ""},
					{"LPUSH", k, "x"},
					{"PEXPIRE", k, rapid.SampledFrom([]string{"1", "1500", "30000"}).Draw(rt, "ttl")},
					{"DEL", k},
				}).Draw(rt, "setup")
				both(cmd...)
				hist = append(hist, fmt.Sprintf("%q", cmd))
			}
			d := time.Duration(rapid.SampledFrom([]int{0, 1, 1499, 1500, 30001}).Draw(rt, "ms")) * time.Millisecond
			a.fastForward(d)
			b.fastForward(d)
			hist = append(hist, fmt.Sprintf("FastForward(%v)", d))
			lruKey, lruSet := "", false
			for i := rapid.IntRange(1, 6).Draw(rt, "cmds"); i > 0; i-- {
				k := rapid.SampledFrom(keys).Draw(rt, "key")
				args := rapid.SampledFrom([][]string{
					{"EXISTS", k},
					{"EXISTS", k, rapid.SampledFrom(keys).Draw(rt, "k2")},
					{"HEXISTS", k, rapid.SampledFrom(fields).Draw(rt, "f")},
					{"HINCRBY", k, rapid.SampledFrom(fields).Draw(rt, "f"), rapid.SampledFrom(ints).Draw(rt, "delta")},
					{"PEXPIRE", k, rapid.SampledFrom(ints).Draw(rt, "ms")},
					{"PTTL", k},
					{"DEL", k},
					{"DEL", k, rapid.SampledFrom(keys).Draw(rt, "k2")},
				}).Draw(rt, "cmd")
				hist = append(hist, fmt.Sprintf("%q", args))
				want := b.do(args...)
				got := ""
				db := a.m.DB(0)
				plan, ok := directCmd(args[0])(db, args[1:], lruSet && args[1] == lruKey)
				if ok {
					directed[args[0]]++
					n := plan.do(db, args[1:], plan)
					got = ":" + strconv.Itoa(n) + "\r\n"
					if args[0] == "EXISTS" && len(args) == 2 && n == 1 {
						lruKey, lruSet = args[1], true
					}
				} else {
					got = a.do(args...)
					if args[0] == "EXISTS" && len(args) == 2 && got == ":1\r\n" {
						lruKey, lruSet = args[1], true
					}
				}
				if got != want {
					rt.Fatalf("%q (direct %v): %q, miniredis %q\nhistory:\n%s", args, ok, got, want, strings.Join(hist, "\n"))
				}
				if x, y := a.state(), b.state(); x != y {
					rt.Fatalf("keyspace differs after %q (direct %v)\ndirect:\n%s\nminiredis:\n%s\nhistory:\n%s", args, ok, x, y, strings.Join(hist, "\n"))
				}
			}
		}
	})
	for _, c := range []string{"EXISTS", "HEXISTS", "HINCRBY", "PEXPIRE", "PTTL", "DEL"} {
		if directed[c] == 0 {
			t.Errorf("no %s was served directly: the generator misses its cases", c)
		}
	}
	t.Logf("served directly: %v", directed)
}
