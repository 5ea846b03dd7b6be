package main

import (
	"encoding/json"
	"testing"
)

// TestPrintedAdviceReproduces runs the command printed under each change
// locksim advises for the reference timelines: each runs to the trace the
// advice was judged on.
func TestPrintedAdviceReproduces(t *testing.T) {
	checked := 0
	for _, name := range []string{"pause-no-fencing", "non-atomic-release", "redisson-3712-stale-renewal-entry", "pause-during-acquire"} {
		_, out, stderr := runCLI("run", "--scenario", name, "--json")
		var s struct {
			Advice []struct {
				Change      string `json:"change"`
				Replay      string `json:"replay"`
				TraceSHA256 string `json:"trace_sha256"`
			} `json:"advice"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("%s: %v: %s%s", name, err, out, stderr)
		}
		if len(s.Advice) == 0 {
			t.Errorf("%s: no advice", name)
		}
		for _, a := range s.Advice {
			if a.Replay == "" {
				t.Errorf("%s: %q has no command", name, a.Change)
				continue
			}
			if got := runPrinted(t, a.Replay); got != a.TraceSHA256 {
				t.Errorf("%s: %q: %s ran to trace %s, advice judged %s", name, a.Change, a.Replay, got, a.TraceSHA256)
			}
			checked++
		}
	}
	t.Logf("%d advice commands reproduced", checked)
}
