package locktest

import (
	"fmt"
	"strings"

	"github.com/locksim/locksim/sim/trace"
)

// probeDeterminism runs two fixed scenarios of a bridged lock twice each
// and reports a lock whose runs differ: one that draws randomness or
// reads time outside what the bridge controls cannot be replayed or
// shrunk, so its verdicts would mean nothing.
func (c *config) probeDeterminism() string {
	if !c.bridged {
		return ""
	}
	for _, data := range FuzzSeeds(3)[1:] {
		res, err := c.evaluate(c.draw(&byteSource{b: data}), "")
		if err != nil {
			return "" // the search reports a scenario that does not run
		}
		if msg := c.rerun(res); msg != "" {
			return msg
		}
	}
	return ""
}

// rerun runs res's scenario again when the lock is bridged and reports
// a different trace.
func (c *config) rerun(res *Result) string {
	if !c.bridged {
		return ""
	}
	again, err := c.evaluate(res.Scenario, "")
	if err != nil {
		return fmt.Sprintf("locktest: %s: a rerun of the same scenario did not run: %v\n  %s", c.Protocol, err, scenarioLine(res.Scenario))
	}
	a, b := res.Outcome.File, again.Outcome.File
	if a.TraceSHA256 == b.TraceSHA256 {
		return ""
	}
	where, parallel := firstDifference(a.Trace, b.Trace)
	why := "  The lock (or a library it uses) draws randomness or reads time that the bridge does not control: math/rand/v2's\n" +
		"  global functions, a source seeded from outside the run, a goroutine still running after Lock or Unlock returned.\n" +
		"  Give it a seeded source (redsync: WithGenValueFunc, WithRetryDelayFunc; redislock: Options.Token); locksim\n" +
		"  cannot replay or shrink a run that is not a function of its scenario."
	if parallel {
		why = "  The runs part where parallel goroutines took one step in another order: goroutines woken at the same instant\n" +
			"  (a library's parallel calls, such as redsync's one per node) drew from a shared source in the order the Go\n" +
			"  scheduler ran them. go-redis draws each retry's backoff from math/rand's global source: set\n" +
			"  Options.MinRetryBackoff to -1 (no backoff, no draw) in this test, or MaxRetries to -1. locksim cannot\n" +
			"  replay or shrink a run that is not a function of its scenario."
	}
	return fmt.Sprintf("locktest: %s is not deterministic: two runs of the same scenario gave different traces (sha256 %s and %s)\n"+
		"  %s\n  first difference: %s\n%s",
		c.Protocol, a.TraceSHA256[:16], b.TraceSHA256[:16], scenarioLine(res.Scenario), where, why)
}

// firstDifference describes where two traces of one scenario part, and
// whether they part as parallel goroutines racing would make them: the
// same step toward other parties, or one instant's events in another
// order.
func firstDifference(a, b *trace.Trace) (string, bool) {
	line := func(e trace.Event) string {
		return strings.TrimSpace(fmt.Sprintf("t=%.3f ms %s %s %s %s %s %s", trace.Ms(e.T), e.Kind, e.Party, e.Client,
			strings.Join(e.Args, " "), e.Reply, e.Detail))
	}
	for i := range min(len(a.Events), len(b.Events)) {
		if fmt.Sprint(a.Events[i]) != fmt.Sprint(b.Events[i]) {
			x, y := line(a.Events[i]), line(b.Events[i])
			return fmt.Sprintf("event %d: %q, then %q", i, x, y), reordered(a.Events[i:], b.Events[i:]) || swapped(a.Events, x, y)
		}
	}
	if len(a.Events) != len(b.Events) {
		return fmt.Sprintf("%d events, then %d", len(a.Events), len(b.Events)), false
	}
	for i := range min(len(a.Ops), len(b.Ops)) {
		if a.Ops[i] != b.Ops[i] {
			return fmt.Sprintf("operation %d: %+v, then %+v", i, a.Ops[i], b.Ops[i]), false
		}
	}
	return "the histories", false
}

// swapped reports whether event lines x and y are one step taken toward
// different parties of the run (a node, a client): the same call of
// parallel goroutines, in another order.
func swapped(evs []trace.Event, x, y string) bool {
	tx, ty := strings.Fields(x), strings.Fields(y)
	if len(tx) != len(ty) {
		return false
	}
	party := map[string]bool{}
	for _, e := range evs {
		party[e.Party] = true
	}
	differ := 0
	for i := range tx {
		if tx[i] != ty[i] {
			if !party[tx[i]] || !party[ty[i]] {
				return false
			}
			differ++
		}
	}
	return differ > 0
}

// reordered reports whether a and b, which differ at their first event,
// hold the same events of that instant in another order.
func reordered(a, b []trace.Event) bool {
	at := a[0].T
	if b[0].T != at {
		return false
	}
	instant := func(evs []trace.Event) map[string]int {
		m := map[string]int{}
		for _, e := range evs {
			if e.T != at {
				break
			}
			m[fmt.Sprint(e)]++
		}
		return m
	}
	x, y := instant(a), instant(b)
	if len(x) < 2 || len(x) != len(y) {
		return false
	}
	for k, n := range x {
		if y[k] != n {
			return false
		}
	}
	return true
}
