package locktest

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
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
