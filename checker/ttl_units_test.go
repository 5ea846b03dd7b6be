package checker

import (
	"testing"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// A script's TTL unit is read from its text; every number form ParseInt
// takes as positive is a TTL, anything else is not.
func TestCommandTTLScriptsAndNumbers(t *testing.T) {
	units := newScriptUnits(map[string]string{
		"a": "redis.call('hset', KEYS[1], ARGV[2], 1); redis.call('PEXPIRE', KEYS[1], ARGV[1])",
		"b": "return redis.call('EXPIRE', KEYS[1], ARGV[1])",
		"c": "return redis.call('GET', KEYS[1])",
	})
	scripts := &units
	cases := []struct {
		args []string
		want time.Duration
		ok   bool
	}{
		{[]string{"EVAL", "sha1:a", "1", "k", "30000", "id:1"}, 30 * time.Second, true},
		{[]string{"EVAL", "sha1:a", "1", "k", "+30000", "id"}, 30 * time.Second, true},
		{[]string{"EVAL", "sha1:b", "1", "k", "30"}, 30 * time.Second, true},
		{[]string{"EVAL", "sha1:c", "1", "k", "30"}, 0, false},
		{[]string{"EVAL", "sha1:a", "1", "k", "-5", "x"}, 0, false},
		{[]string{"EVAL", "sha1:a", "1", "k", "+", "1e3"}, 0, false},
		{[]string{"SET", "k", "v", "PX", "+250"}, 250 * time.Millisecond, true},
		{[]string{"SET", "k", "v", "EX", "0x10"}, 0, false},
	}
	for round := range 2 { // the second round reads the memoized units
		for _, c := range cases {
			e := trace.Command("redis", "c1", "k", c.args, "OK", "")
			got, ok := commandTTL(&e, scripts)
			if got != c.want || ok != c.ok {
				t.Fatalf("round %d, %q: %v %v, want %v %v", round, c.args, got, ok, c.want, c.ok)
			}
		}
	}
}
