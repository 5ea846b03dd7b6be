package explore

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/locksim/locksim/sim/trace"
)

// A step is one instant of a run at which the protocol did something: a
// client invoked or finished an operation, a node ran a command, a key
// expired, a replica applied a write. Verify places faults at the steps
// of the fault-free run, at millisecond resolution (a fault's start is in
// ms).
type step struct {
	AtMs  int64
	Label string // what happened then, for the report
}

// stepsOf lists the distinct milliseconds at which tr's events and
// operations happened, in time order, each labelled with its most telling
// happening: an operation's return or call first, then a command, then
// any event.
func stepsOf(tr *trace.Trace) []step {
	type cand struct {
		rank  int
		label string
	}
	best := map[int64]cand{}
	offer := func(ns int64, rank int, label string) {
		ms := ns / 1e6
		if c, ok := best[ms]; !ok || rank < c.rank {
			best[ms] = cand{rank, label}
		}
	}
	for _, op := range tr.Ops {
		offer(op.Call, 1, fmt.Sprintf("%s invoked %s %s", op.Client, op.Kind, op.Key))
		if !op.Open() {
			offer(op.Return, 0, fmt.Sprintf("%s's %s %s returned %s", op.Client, op.Kind, op.Key, op.Result))
		}
	}
	for _, e := range tr.Events {
		switch {
		case e.Kind == trace.EvCommand && len(e.Args) > 0:
			by := ""
			if e.Client != "" {
				by = " for " + e.Client
			}
			offer(e.T, 2, fmt.Sprintf("%s ran %s%s", e.Party, strings.ToUpper(e.Args[0]), by))
		default:
			what := e.Kind
			if e.Key != "" {
				what += " " + e.Key
			}
			offer(e.T, 3, fmt.Sprintf("%s: %s", e.Party, what))
		}
	}
	offer(0, 4, "the start")
	out := make([]step, 0, len(best))
	for ms, c := range best {
		out = append(out, step{AtMs: ms, Label: c.label})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].AtMs < out[j].AtMs })
	return out
}

// partiesOf lists, sorted, the parties of tr's events of the given kinds:
// the Redis nodes (the parties that ran commands, applied replication or
// expired keys) or the services (databases, storage).
func partiesOf(tr *trace.Trace, kinds ...string) []string {
	set := map[string]bool{}
	for _, e := range tr.Events {
		if slices.Contains(kinds, e.Kind) {
			set[e.Party] = true
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
