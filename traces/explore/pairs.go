package explore

import (
	"fmt"
	"strings"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

// Two faults (VerifyOptions.Depth 2). The failures the literature builds
// from two faults pair a node fault with a network split that was already
// there: Kleppmann's clock jump and restart on Redlock need a holder that
// owns a bare quorum (cut from a minority), a lost acknowledged key needs
// a promotable replica left stale. So a depth-2 cell runs, after its
// single faults:
//
//   - every single fault of the kind, placed at every step of the run
//     with each standing split (from the start, for the whole run), at
//     offset 0: the steps are those of the run with the split alone,
//     since the split moves them (a bare-quorum acquire waits for its
//     timeouts);
//   - two faults of the kind, the second at a later step of the
//     fault-free run within one lease of the first, at offset 0;
//
// up to PairBudget two-fault runs a cell in that order, shared evenly by
// the cell's points (the claim then says how many it tried of how many,
// and claims nothing for the rest).

// DefaultPairBudget bounds a cell's two-fault placements: with the
// singles, at most about 30,000 runs (redlock's worst cell, partition:
// 7,500 singles), 40 to 100 s of CPU at 1.4 to 3.7 ms a redlock run.
const DefaultPairBudget = 20_000

// standing lists the splits a depth-2 cell pairs with each fault: on
// independent masters, each client cut from each minority of them; with
// replicas, each replica cut from the master while the sentinel is cut
// from the others (a failover can promote only the stale one). A single
// node has none: a client cut from it for the whole run only leaves.
func (s scope) standing() []variant {
	dur := s.sc.HorizonMs
	cut := func(label string, links ...string) variant {
		v := variant{label: label}
		for _, l := range links {
			v.faults = append(v.faults, trace.Fault{Kind: trace.FaultPartition, Target: l, DurMs: dur})
			v.fixed = append(v.fixed, true)
		}
		return v
	}
	nodes := protocols.LockNodes(s.sc)
	var out []variant
	switch s.sc.Topology {
	case protocols.TopoIndependent:
		for _, c := range s.clients {
			for _, sub := range subsets(nodes, len(nodes)/2) {
				var links []string
				for _, n := range sub {
					links = append(links, c+"<->"+n)
				}
				out = append(out, cut(fmt.Sprintf("%s cut from %s", c, strings.Join(sub, ",")), links...))
			}
		}
	case protocols.TopoReplicated:
		for _, r := range nodes[1:] {
			links := []string{protocols.MasterNode + "<->" + r}
			for _, o := range nodes[1:] {
				if o != r {
					links = append(links, sim.Sentinel+"<->"+o)
				}
			}
			out = append(out, cut(fmt.Sprintf("%s stale (cut from %s; the sentinel cut from the other replicas)", r, protocols.MasterNode), links...))
		}
	}
	return out
}

// subsets lists the k-element subsets of xs, in order.
func subsets(xs []string, k int) [][]string {
	if k == 0 {
		return [][]string{nil}
	}
	var out [][]string
	for i := 0; i+k <= len(xs); i++ {
		for _, rest := range subsets(xs[i+1:], k-1) {
			out = append(out, append([]string{xs[i]}, rest...))
		}
	}
	return out
}

// pairs lists a depth-2 cell's two-fault placements, up to budget runs:
// first the standing splits, step by step across the splits (the early
// steps of every split before the late ones: a split's acquire comes
// first), then same-kind pairs in step order. total counts them all,
// skipped the ones the budget left out.
func (s scope) pairs(cell, base int, steps []step, vs []variant, budget int) (jobs []verifyJob, total, skipped int, err error) {
	add := func(j verifyJob) {
		total++
		if total > budget {
			skipped++
			return
		}
		jobs = append(jobs, j)
	}
	splits := s.standing()
	var splitSteps [][]step
	longest := 0
	for i := range splits {
		sc := s.sc
		sc.Faults = placement{variant: &splits[i]}.faults(nil)
		o, err := traces.Evaluate(sc)
		if err != nil {
			return nil, 0, 0, err
		}
		splitSteps = append(splitSteps, stepsOf(o.File.Trace))
		longest = max(longest, len(splitSteps[i]))
	}
	for k := range longest {
		for i := range splits {
			if k >= len(splitSteps[i]) {
				continue
			}
			split := &placement{step: step{AtMs: 0, Label: "the start"}, variant: &splits[i]}
			for v := range vs {
				add(verifyJob{cell: cell, base: base, placement: placement{splitSteps[i][k], 0, &vs[v]}, second: split})
			}
		}
	}
	for i, a := range steps {
		for _, b := range steps[i+1:] {
			if b.AtMs-a.AtMs > s.sc.LeaseMs {
				break
			}
			for x := range vs {
				for y := range vs {
					add(verifyJob{cell: cell, base: base, placement: placement{a, 0, &vs[x]}, second: &placement{b, 0, &vs[y]}})
				}
			}
		}
	}
	return jobs, total, skipped, nil
}
