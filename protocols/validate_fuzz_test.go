package protocols

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/locksim/locksim/sim"
)

// FuzzScenario decodes arbitrary JSON as a scenario (with its fault
// schedule) and normalizes it: a scenario is accepted or refused with an
// error, never a panic; an accepted one is a fixed point of Normalize and,
// when small, runs to a trace within its event budget.
func FuzzScenario(f *testing.F) {
	f.Add([]byte(`{"protocol":"setnx-del","faults":[{"kind":"gc-pause","target":"c1","at_ms":1000,"dur_ms":70000}]}`))
	f.Add([]byte(`{"protocol":"redlock","fault_kinds":["clock-jump","node-restart"],"intensity":3}`))
	f.Add([]byte(`{"protocol":"setnx-lua-del","topology":"replicated","fault_kinds":["failover"],"repl_lag_ms":[5,1]}`))
	f.Add([]byte(`{"protocol":"fenced","faults":[{"kind":"clock-jump","target":"redis","at_ms":5,"dur_ms":0,"value":-1000000000000000000}]}`))
	f.Add([]byte(`{"protocol":"setnx-del","lease_ms":9223372036854775807,"network":{"latency_min_ns":5,"latency_max_ns":1}}`))
	f.Add([]byte(`{"seed":1,"protocol":"setnx-del","fault_kinds":["gc-pause"],"clients":4,"intensity":2,"swarm":true}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var sc Scenario
		if json.Unmarshal(b, &sc) != nil {
			return
		}
		n, err := sc.Normalize()
		if err != nil {
			return
		}
		again, err := n.Normalize()
		if err != nil {
			t.Fatalf("a normalized scenario is refused: %v", err)
		}
		x, _ := json.Marshal(n)
		y, _ := json.Marshal(again)
		if string(x) != string(y) {
			t.Fatalf("Normalize is not idempotent:\n%s\n%s", x, y)
		}
		if n.Clients*n.Threads*n.Ops > 16 || len(n.Faults) > 20 {
			return
		}
		n.MaxEvents = 20000
		if _, _, err := Run(n); errors.Is(err, sim.ErrPanic) {
			t.Fatalf("an accepted scenario panics: %v", err)
		}
	})
}
