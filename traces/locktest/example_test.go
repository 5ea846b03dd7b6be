package locktest_test

import (
	"fmt"
	"os"
	"strings"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/locktest"
)

// printTB is a rapid.TB that prints the first line of a failure instead
// of failing: examples have no *testing.T. In a test, pass t.
type printTB struct {
	failed bool
}

func (*printTB) Helper()                     {}
func (*printTB) Name() string                { return "Example" }
func (*printTB) Logf(string, ...any)         {}
func (*printTB) Log(...any)                  {}
func (*printTB) Skipf(string, ...any)        {}
func (*printTB) Skip(...any)                 {}
func (*printTB) SkipNow()                    {}
func (p *printTB) Errorf(f string, a ...any) { p.print(fmt.Sprintf(f, a...)) }
func (p *printTB) Error(a ...any)            { p.print(fmt.Sprint(a...)) }
func (p *printTB) Fatalf(f string, a ...any) { p.print(fmt.Sprintf(f, a...)) }
func (p *printTB) Fatal(a ...any)            { p.print(fmt.Sprint(a...)) }
func (p *printTB) FailNow()                  { p.failed = true }
func (p *printTB) Fail()                     { p.failed = true }
func (p *printTB) Failed() bool              { return p.failed }
func (p *printTB) print(msg string) {
	p.failed = true
	first, _, _ := strings.Cut(msg, "\n")
	fmt.Println(first)
}

// Check a catalog lock under GC pauses: setnx-del's 60 s lease does not
// survive a pause that outlasts it. In a test: locktest.Check(t, cfg).
func ExampleCheck() {
	dir, _ := os.MkdirTemp("", "locktest")
	defer os.RemoveAll(dir)
	locktest.Check(&printTB{}, locktest.Config{
		Protocol:   "setnx-del",
		Faults:     []string{trace.FaultGCPause},
		Checks:     1000, // Check stops at the first failure
		ShrinkRuns: 300,
		TraceDir:   dir,
	})
	// Output:
	// locksim: mutual-exclusion violated (premature-expiry)
}

// Property composes with rapid.Check like any rapid property: here
// setnx-lua-del without faults keeps mutual exclusion in every scenario.
func ExampleProperty() {
	tb := &printTB{}
	rapid.Check(tb, locktest.Property(locktest.Config{Protocol: "setnx-lua-del", MaxClients: 2, MaxOps: 2}))
	fmt.Println("failed:", tb.Failed())
	// Output:
	// failed: false
}

// Scenarios draws scenarios for a rapid.Check of one's own; each is
// explicit, with its fault schedule as timed events aimed at the
// scenario's real parties.
func ExampleScenarios() {
	g := locktest.Scenarios(locktest.Config{
		Protocol:   "setnx-lua-del",
		Faults:     []string{trace.FaultGCPause, trace.FaultFailover},
		Topologies: []string{protocols.TopoReplicated},
		MaxFaults:  2,
	})
	sc := g.Example(3)
	fmt.Println(sc.Protocol, sc.Topology, "clients:", sc.Clients, "down_after_ms:", sc.DownAfterMs)
	for _, f := range sc.Faults {
		fmt.Printf("%s %s at %d ms for %d ms\n", f.Kind, f.Target, f.AtMs, f.DurMs)
	}
	// Output:
	// setnx-lua-del replicated clients: 2 down_after_ms: 2000
	// gc-pause c2 at 600 ms for 3750 ms
}

// Decode turns fuzz bytes into a scenario: the empty input is the
// simplest one; more bytes choose more.
func ExampleDecode() {
	cfg := locktest.Config{Protocol: "setnx-del", Faults: []string{trace.FaultGCPause}}
	sc, _ := locktest.Decode(cfg, nil)
	fmt.Println("clients:", sc.Clients, "ops:", sc.Ops, "faults:", len(sc.Faults))
	// Two bytes per choice, in draw order: clients 1+1, ops 1+0,
	// stagger and retry (the defaults), 1 fault event: target c1, at 2 x
	// 100 ms, for 1+8 eighths of the 60 s lease; the seed reads 0.
	sc, _ = locktest.Decode(cfg, []byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 8})
	fmt.Println("clients:", sc.Clients, "ops:", sc.Ops, "seed:", sc.Seed)
	for _, f := range sc.Faults {
		fmt.Printf("%s %s at %d ms for %d ms\n", f.Kind, f.Target, f.AtMs, f.DurMs)
	}
	// Output:
	// clients: 1 ops: 1 faults: 0
	// clients: 2 ops: 1 seed: 0
	// gc-pause c1 at 200 ms for 67500 ms
}

// Evaluate runs and judges one scenario: here the reference timeline
// pause-no-fencing.
func ExampleEvaluate() {
	ref, _ := traces.LookupReference("pause-no-fencing")
	res, err := locktest.Evaluate(locktest.Config{Protocol: "setnx-del"}, ref.Scenario)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Failure.Title)
	fmt.Println(res.Failure.Violations[0].Clients, res.Failure.Damage.DuplicateInserts, "duplicate insert")
	// Output:
	// locksim: mutual-exclusion violated (premature-expiry)
	// [c1/t1 c2/t1] 1 duplicate insert
}

// A lock of one's own (the README's my-lock, registered in readme_test.go)
// under a pause longer than its 10 s lease.
func ExampleEvaluate_customLock() {
	res, err := locktest.Evaluate(locktest.Config{Protocol: "my-lock"}, protocols.Scenario{
		Protocol: "my-lock", Clients: 2, Ops: 1, StaggerMs: 500,
		Faults: []trace.Fault{{Kind: trace.FaultGCPause, Target: "c1", AtMs: 1000, DurMs: 15000}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Failure.Title)
	// Output:
	// locksim: mutual-exclusion violated (premature-expiry)
}
