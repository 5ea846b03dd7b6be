package explore

import (
	"fmt"
	"slices"

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
	return fmt.Sprintf("%s, %s, %s, %s (%d ms of faults)", Plural(s.Clients, "client"), Plural(s.Threads, "thread"),
		Plural(s.Ops, "op"), Plural(s.Faults, "fault"), s.FaultMs)
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
	with := func(mod func(*protocols.Scenario)) protocols.Scenario {
		c := sc
		c.Faults = append([]trace.Fault{}, sc.Faults...)
		mod(&c)
		out = append(out, c)
		return c
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
		out = append(out, shrinkFault(sc, i, f, with)...)
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
		t, err := trace.ParseTarget(f.Target)
		if err != nil || !t.Names(gone) && (f.Anchor == nil || f.Anchor.Party != gone) {
			kept = append(kept, f)
		}
	}
	sc.Faults = kept
	sc.ClientNames = slices.Delete(names, i, i+1)
	sc.Clients--
}

// shrinkFault lists the smaller variants of fault i that its kind's
// shrink rule allows (trace.KindSpec.Shrink): a shorter duration, an
// earlier start (for an anchored fault, a smaller offset from its
// anchor), a smaller amount.
func shrinkFault(sc protocols.Scenario, i int, f trace.Fault, with func(func(*protocols.Scenario)) protocols.Scenario) []protocols.Scenario {
	spec, ok := trace.LookupKind(f.Kind)
	if !ok {
		return nil
	}
	var out []protocols.Scenario
	add := func(mod func(*trace.Fault)) {
		out = append(out, with(func(c *protocols.Scenario) {
			nf := f
			if f.Anchor != nil {
				a := *f.Anchor
				nf.Anchor = &a
			}
			mod(&nf)
			c.Faults[i] = nf
		}))
	}
	if spec.Shrink&trace.ShrinkDur != 0 && f.DurMs > 1 {
		add(func(nf *trace.Fault) { nf.DurMs = f.DurMs / 2 })
		add(func(nf *trace.Fault) { nf.DurMs = f.DurMs * 9 / 10 })
	}
	if spec.Shrink&trace.ShrinkAt != 0 {
		switch {
		case f.Anchor != nil && f.Anchor.AfterMs > 0:
			add(func(nf *trace.Fault) { nf.Anchor.AfterMs /= 2 })
		case f.Anchor == nil && f.AtMs > 0:
			add(func(nf *trace.Fault) { nf.AtMs = f.AtMs / 2 })
		}
	}
	if spec.Shrink&trace.ShrinkValue != 0 && (f.Value > 1 || f.Value < -1) {
		add(func(nf *trace.Fault) { nf.Value = f.Value / 2 })
	}
	return out
}
