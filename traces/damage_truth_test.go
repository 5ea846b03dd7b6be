package traces

import (
	"strings"
	"testing"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// runScenarioJSON runs a scenario as a user's file gives it.
func runScenarioJSON(t *testing.T, js string) *Outcome {
	t.Helper()
	sc, err := protocols.ParseScenario([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	o, err := Execute(sc)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// A holder paused while acquiring learns of its grant after its key
// expired and after the next holder took the lock; its insert, after the
// next holder's, is stale: the next holder's grant is the newer one, as a
// fencing token would be, though the paused client believed it held the
// lock later.
func TestStaleWriteOrderedByGrant(t *testing.T) {
	o := runScenarioJSON(t, `{"seed": 1, "protocol": "setnx-del", "workload": "unique-name", "clients": 2, "ops": 2,
		"faults": [{"kind": "gc-pause", "target": "c2", "at_ms": 61, "dur_ms": 61000}]}`)
	ops := o.File.Trace.Ops
	var c2Acquired, c1Granted bool
	for _, op := range ops {
		c2Acquired = c2Acquired || op.Client == "c2/t1" && op.Kind == model.OpAcquire && op.Result == model.ResOK && op.Return > 61e9
		c1Granted = c1Granted || op.Client == "c1/t1" && op.Kind == model.OpAcquire && op.Result == model.ResOK && op.Return > 60e9 && op.Return < 61e9
	}
	if !c2Acquired || !c1Granted {
		t.Fatalf("the run no longer has c1 granted at 60 s and c2 learning of its grant after 61 s: %+v", ops)
	}
	d := o.File.Report.Damage
	if d.StaleWritesAccepted != 1 || d.HarmlessLateWrites != 0 {
		t.Fatalf("damage %+v, want c2's insert after c1's counted as 1 stale write accepted", d)
	}
}

// A fenced write delayed past its client's timeout still reaches the
// data, which refuses its stale token: the refusal counts although the
// writer never heard it.
func TestRefusalOfAbandonedWriteCounted(t *testing.T) {
	o := runScenarioJSON(t, `{"seed": 2, "protocol": "fenced", "workload": "unique-name", "clients": 2, "ops": 4, "lease_ms": 10000,
		"think_ms": 1000, "stagger_ms": 100, "arrival": "open", "faults": [
		{"kind": "delay", "target": "c1->db", "at_ms": 0, "dur_ms": 6855, "value": 10039,
		 "anchor": {"party": "c1", "op": "acquire", "phase": "return", "result": "ok", "nth": 1, "after_ms": 1008}},
		{"kind": "delay", "target": "c1->redis", "at_ms": 15524, "dur_ms": 6951, "value": 6340}]}`)
	refused := 0
	for _, e := range o.File.Trace.Events {
		if e.Kind == trace.EvService && e.Client == "c1/t1" && strings.HasPrefix(e.Reply, model.ResRejected) {
			refused++
		}
	}
	heard := 0
	for _, op := range o.File.Trace.Ops {
		if op.Result == model.ResRejected {
			heard++
		}
	}
	if refused != 1 || heard != 0 {
		t.Fatalf("the run no longer has one refusal its writer did not hear: %d refused, %d heard", refused, heard)
	}
	if d := o.File.Report.Damage; d.StaleWritesRejected != 1 {
		t.Fatalf("damage %+v, want 1 stale write rejected", d)
	}
}
