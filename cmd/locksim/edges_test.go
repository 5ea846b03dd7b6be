package main

import (
	"strings"
	"testing"

	"github.com/locksim/locksim/traces/explore"
)

// TestZeroDurationsAreRefused: every scenario flag in milliseconds refuses
// 0 (the scenario's "unset", which used to mean the default without a
// word) and negative values, naming the flag, in run and explore.
func TestZeroDurationsAreRefused(t *testing.T) {
	n := 0
	for _, name := range explore.ScenarioFlagNames() {
		if !strings.HasSuffix(name, "-ms") {
			continue
		}
		n++
		for _, v := range []string{"0", "-5"} {
			for _, cmd := range []string{"run", "explore"} {
				code, _, stderr := runCLI(cmd, "--protocol", "setnx-del", "--runs", "1", "--"+name, v)
				if cmd == "run" {
					code, _, stderr = runCLI(cmd, "--protocol", "setnx-del", "--"+name, v)
				}
				if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--"+name+` "`+v+`"`) {
					t.Errorf("%s --%s %s: exit %d, %q", cmd, name, v, code, stderr)
				}
			}
		}
	}
	if n < 6 {
		t.Fatalf("only %d millisecond flags", n)
	}
	if code, _, stderr := runCLI("run", "--protocol", "setnx-del", "--lease-ms", "1"); code == exitUsage {
		t.Fatalf("--lease-ms 1 refused: %s", stderr)
	}
}
