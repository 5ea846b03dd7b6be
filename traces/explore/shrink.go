package explore

import (
	"fmt"
	"slices"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

// ShrinkResult tells what shrinking did.
type ShrinkResult struct {
	Property string
	Cause    string
	Before   Size
	After    Size
	Runs     int
	File     *traces.File
}

// Size is what shrinking makes smaller.
type Size struct {
	Clients int   `json:"clients"`
	Threads int   `json:"threads"`
	Ops     int   `json:"ops"`
	Faults  int   `json:"faults"`
	FaultMs int64 `json:"fault_ms"` // total fault duration
}

func (s Size) String() string {
	return fmt.Sprintf("%d clients, %d threads, %d ops, %d faults (%d ms of faults)", s.Clients, s.Threads, s.Ops, s.Faults, s.FaultMs)
}

func sizeOf(sc protocols.Scenario) Size {
	s := Size{Clients: sc.Clients, Threads: sc.Threads, Ops: sc.Ops, Faults: len(sc.Faults)}
	for _, f := range sc.Faults {
		s.FaultMs += f.DurMs
	}
	return s
}

// Shrink makes f's failing scenario minimal while it still fails with the
// same property and cause: it drops faults, removes clients, threads and
// operations, and shortens faults, greedily, until nothing more can go or
// budget runs are spent. The seed stays: it only drives noise.
func Shrink(f *traces.File, budget int) (*ShrinkResult, error) {
	target, ok := firstViolation(f.Report)
	if !ok {
		return nil, fmt.Errorf("the trace has no violation to shrink")
	}
	best := f
	res := &ShrinkResult{Property: target.Property, Cause: target.Cause, Before: sizeOf(f.Scenario)}
	fails := func(sc protocols.Scenario) *traces.File {
		if res.Runs >= budget {
			return nil
		}
		res.Runs++
		o, err := traces.Execute(sc)
		if err != nil {
			return nil
		}
		for _, v := range o.File.Report.Violations {
			if v.Property == target.Property && v.Cause == target.Cause {
				return o.File
			}
		}
		return nil
	}
	for improved := true; improved && res.Runs < budget; {
		improved = false
		for _, cand := range candidates(best.Scenario) {
			if nf := fails(cand); nf != nil {
				best, improved = nf, true
				break
			}
		}
	}
	res.After = sizeOf(best.Scenario)
	res.File = best
	return res, nil
}

func firstViolation(r checker.Report) (checker.Violation, bool) {
	for _, v := range r.Violations {
		if v.Property == checker.PropMutex {
			return v, true
		}
	}
	if len(r.Violations) > 0 {
		return r.Violations[0], true
	}
	return checker.Violation{}, false
}

// candidates lists smaller variants of sc, most reducing first.
func candidates(sc protocols.Scenario) []protocols.Scenario {
	sc.FaultKinds = nil // the schedule is explicit from now on
	var out []protocols.Scenario
	with := func(mod func(*protocols.Scenario)) {
		c := sc
		c.Faults = append([]trace.Fault{}, sc.Faults...)
		mod(&c)
		out = append(out, c)
	}
	for i := range sc.Faults {
		with(func(c *protocols.Scenario) { c.Faults = append(c.Faults[:i], c.Faults[i+1:]...) })
	}
	for i := sc.Clients - 1; i >= 0 && sc.Clients > 1; i-- {
		with(func(c *protocols.Scenario) { removeClient(c, i) })
	}
	if sc.Threads > 1 {
		with(func(c *protocols.Scenario) { c.Threads-- })
	}
	if sc.Ops > 1 {
		with(func(c *protocols.Scenario) { c.Ops = (c.Ops + 1) / 2 })
		with(func(c *protocols.Scenario) { c.Ops-- })
	}
	for i, f := range sc.Faults {
		if f.DurMs > 1 {
			with(func(c *protocols.Scenario) { c.Faults[i].DurMs = f.DurMs / 2 })
			with(func(c *protocols.Scenario) { c.Faults[i].DurMs = f.DurMs * 9 / 10 })
		}
		if f.AtMs > 0 {
			with(func(c *protocols.Scenario) { c.Faults[i].AtMs = f.AtMs / 2 })
		}
	}
	return out
}

// removeClient drops client i and the faults that name it. The others
// keep their names, and with them their noise streams, so the rest of the
// run changes as little as possible.
func removeClient(sc *protocols.Scenario, i int) {
	names := make([]string, sc.Clients)
	for k := range names {
		names[k] = sc.Client(k)
	}
	gone := names[i]
	var kept []trace.Fault
	for _, f := range sc.Faults {
		parties, _ := splitTarget(f.Target)
		if !slices.Contains(parties, gone) {
			kept = append(kept, f)
		}
	}
	sc.Faults = kept
	sc.ClientNames = slices.Delete(names, i, i+1)
	sc.Clients--
}

func splitTarget(t string) ([]string, string) {
	for _, sep := range []string{"<->", "->"} {
		if strings.Contains(t, sep) {
			return strings.Split(t, sep), sep
		}
	}
	return []string{t}, ""
}
