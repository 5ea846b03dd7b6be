package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/traces"
)

// TestPrintedAdviceReproduces runs the command printed under each change
// locksim advises for every reference scenario, for a scenario file with
// a setting no flag sets, and for a trace file replayed: each must be
// there and run to the trace the advice was judged on, in the JSON and in
// the text alike.
func TestPrintedAdviceReproduces(t *testing.T) {
	dir := t.TempDir()
	// A scenario file whose command timeout no flag can give.
	_, printed, _ := runCLI("run", "--scenario", "pause-no-fencing", "--print-scenario")
	file := filepath.Join(dir, "timeout.json")
	edited := strings.Replace(printed, `"timeout_ms": 3000`, `"timeout_ms": 4000`, 1)
	if edited == printed {
		t.Fatalf("no timeout_ms of 3000 to edit in %s", printed)
	}
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "trace.json")
	if code, _, stderr := runCLI("run", "--scenario", "redisson-7272-watchdog-outlives-unlock", "--trace", trace); code != exitViolation {
		t.Fatalf("writing the trace: exit %d: %s", code, stderr)
	}
	runs := [][]string{{"run", "--scenario", file}, {"replay", trace}}
	for _, ref := range traces.References() {
		runs = append(runs, []string{"run", "--scenario", ref.Name})
	}
	checked := 0
	for _, args := range runs {
		name := strings.Join(args, " ")
		_, out, stderr := runCLI(append(args, "--json")...)
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
		_, text, _ := runCLI(args...)
		for _, a := range s.Advice {
			if a.Replay == "" {
				t.Errorf("%s: %q has no command", name, a.Change)
				continue
			}
			if !strings.Contains(text, "\n      "+a.Replay+"\n") {
				t.Errorf("%s: %q: the text does not print %s", name, a.Change, a.Replay)
			}
			if got := runPrinted(t, a.Replay); got != a.TraceSHA256 {
				t.Errorf("%s: %q: %s ran to trace %s, advice judged %s", name, a.Change, a.Replay, got, a.TraceSHA256)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Error("no advice command was checked")
	}
	t.Logf("%d advice commands reproduced", checked)
}

// TestRunChangesANamedScenario: scenario flags given with --scenario
// change that scenario as --print-scenario shows it, --fault replacing
// its schedule; a flag that draws faults is refused, its faults being
// drawn already.
func TestRunChangesANamedScenario(t *testing.T) {
	var base, changed struct {
		Protocol string `json:"protocol"`
		LeaseMs  int64  `json:"lease_ms"`
		Faults   []any  `json:"faults"`
	}
	_, out, _ := runCLI("run", "--scenario", "pause-no-fencing", "--print-scenario")
	if err := json.Unmarshal([]byte(out), &base); err != nil {
		t.Fatal(err)
	}
	_, out, stderr := runCLI("run", "--scenario", "pause-no-fencing", "--protocol", "setnx-lua-del", "--fault", "gc-pause:c2@2000+100", "--print-scenario")
	if err := json.Unmarshal([]byte(out), &changed); err != nil {
		t.Fatalf("%v: %s%s", err, out, stderr)
	}
	if changed.Protocol != "setnx-lua-del" || changed.LeaseMs != base.LeaseMs || len(changed.Faults) != 1 {
		t.Errorf("changed %+v from %+v: want setnx-lua-del, the lease kept, the one fault given", changed, base)
	}
	if code, _, stderr := runCLI("run", "--scenario", "pause-no-fencing", "--faults", "gc-pause"); code != exitUsage || !strings.Contains(stderr, "drawn already") {
		t.Errorf("--faults on a named scenario: exit %d, %q", code, stderr)
	}
}
