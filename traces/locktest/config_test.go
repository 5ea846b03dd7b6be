package locktest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/protocols"
)

// TestCheckCountsAgree: with Config.Checks set, what go test -v shows
// counts the same number of scenarios everywhere: locktest's "held in N
// scenarios" is Checks, and no line of rapid's says another number
// (rapid counts -rapid.checks cases, the untried ones too).
func TestCheckCountsAgree(t *testing.T) {
	counted := regexp.MustCompile(`(?:passed|held in) (\d+) (?:tests|scenarios)`)
	for _, checks := range []int{10, 30, 200} {
		r := newRecorder(t)
		Check(r, Config{Protocol: "setnx-lua-del", MaxClients: 2, MaxOps: 1, Checks: checks, TraceDir: t.TempDir()})
		if r.Failed() {
			t.Fatalf("Checks %d: %s", checks, r.message())
		}
		want := checks
		if testing.Short() {
			want = max(1, checks/5)
		}
		held := false
		for _, l := range r.logs {
			for _, m := range counted.FindAllStringSubmatch(l, -1) {
				if n, _ := strconv.Atoi(m[1]); n != want {
					t.Errorf("Checks %d: %q counts %d scenarios, want %d", checks, l, n, want)
				}
				held = held || strings.HasPrefix(m[0], "held")
			}
		}
		if !held {
			t.Errorf("Checks %d: no line says how many scenarios held: %q", checks, r.logs)
		}
	}
}

// TestConfigConflictsRefused: fields that contradict each other, or
// that could only be ignored, are refused in one line naming the fields
// the user set.
func TestConfigConflictsRefused(t *testing.T) {
	noop := &Resource{Spec: model.Spec{Name: "conflict-noop", Init: func() any { return 0 },
		Apply: func(s any, _, _ string) (any, string) { return s, "ok" }}, Critical: func(*Section, int) {}}
	mine := &protocols.Protocol{Name: "conflict-mine", Lease: time.Second,
		New: func(protocols.Env, string) protocols.Lock { return nopLock{} }}
	noMaster := *plainGoRedis
	noMaster.Name, noMaster.FailoverOptions = "go-no-master", &redis.FailoverOptions{ReadTimeout: time.Second}
	for _, tc := range []struct {
		name  string
		cfg   Config
		names []string // what the message must name
	}{
		{"Protocol with GoRedis", Config{Protocol: "setnx-lua-del", GoRedis: plainGoRedis}, []string{"Config.Protocol", "Config.GoRedis"}},
		{"Protocol with Lock", Config{Protocol: "setnx-lua-del", Lock: mine}, []string{"Config.Protocol", "Config.Lock"}},
		{"Lock with GoRedis", Config{Lock: mine, GoRedis: plainGoRedis}, []string{"Config.Lock", "Config.GoRedis"}},
		{"Workload with Data", Config{GoRedis: plainGoRedis, Workload: "unique-name", Data: shelves()}, []string{"Config.Workload", "Config.Data"}},
		{"Workload with Resource", Config{Protocol: "setnx-lua-del", Workload: "unique-name", Resource: noop}, []string{"Config.Workload", "Config.Resource"}},
		{"FailoverOptions without MasterName", Config{GoRedis: &noMaster}, []string{"FailoverOptions.MasterName"}},
		{"FenceHeld on a GoRedis lock", Config{GoRedis: plainGoRedis, Property: FenceHeld}, []string{"Config.Property", "fence-held"}},
		{"FenceHeld on an unfenced catalog lock", Config{Protocol: "setnx-lua-del", Property: FenceHeld}, []string{"Config.Property", "fence-held"}},
	} {
		_, err := tc.cfg.prepare()
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || !containsAll(msg, tc.names) {
			t.Errorf("%s: %q does not name %v in one line", tc.name, msg, tc.names)
		}
	}
	// A lock that hands out tokens is judged by FenceHeld.
	if _, err := (Config{Protocol: "fenced", Property: FenceHeld}).prepare(); err != nil {
		t.Errorf("FenceHeld on a fencing lock: %v", err)
	}
}

// TestNamesFollowOneRule: GoRedis.Name and Data.Name accept and refuse
// the same names, with the same message naming the field.
func TestNamesFollowOneRule(t *testing.T) {
	for _, name := range []string{"my lock", "a/b", "orders:v2", "é"} {
		g := *plainGoRedis
		g.Name = name
		_, gErr := Config{GoRedis: &g}.prepare()
		d := shelves()
		d.Name = name
		_, dErr := Config{GoRedis: plainGoRedis, Data: d}.prepare()
		for field, err := range map[string]error{"Config.GoRedis.Name": gErr, "Config.Data.Name": dErr} {
			if want := fmt.Sprintf("locktest: %s %q: letters, digits, - and _ only", field, name); err == nil || err.Error() != want {
				t.Errorf("name %q: got %v, want %s", name, err, want)
			}
		}
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
