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
	return fmt.Sprintf("locktest: %s is not deterministic: two runs of the same scenario gave different traces (sha256 %s and %s)\n"+
		"  %s\n  first difference: %s\n"+
		"  The lock (or a library it uses) draws randomness or reads time that the bridge does not control: math/rand/v2's\n"+
		"  global functions, a source seeded from outside the run, a goroutine still running after Lock or Unlock returned.\n"+
		"  Give it a seeded source (redsync: WithGenValueFunc, WithRetryDelayFunc; redislock: Options.Token); locksim\n"+
		"  cannot replay or shrink a run that is not a function of its scenario.",
		c.Protocol, a.TraceSHA256[:16], b.TraceSHA256[:16], scenarioLine(res.Scenario), firstDifference(a.Trace, b.Trace))
}

// firstDifference describes where two traces of one scenario part.
func firstDifference(a, b *trace.Trace) string {
	line := func(e trace.Event) string {
		return strings.TrimSpace(fmt.Sprintf("t=%.3f ms %s %s %s %s %s %s", trace.Ms(e.T), e.Kind, e.Party, e.Client,
			strings.Join(e.Args, " "), e.Reply, e.Detail))
	}
	for i := range min(len(a.Events), len(b.Events)) {
		if fmt.Sprint(a.Events[i]) != fmt.Sprint(b.Events[i]) {
			return fmt.Sprintf("event %d: %q, then %q", i, line(a.Events[i]), line(b.Events[i]))
		}
	}
	if len(a.Events) != len(b.Events) {
		return fmt.Sprintf("%d events, then %d", len(a.Events), len(b.Events))
	}
	for i := range min(len(a.Ops), len(b.Ops)) {
		if a.Ops[i] != b.Ops[i] {
			return fmt.Sprintf("operation %d: %+v, then %+v", i, a.Ops[i], b.Ops[i])
		}
	}
	return "the histories"
}
