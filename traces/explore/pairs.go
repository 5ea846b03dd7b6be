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
//     fault-free run within one lease of the first, at offset 0, up to
//     PairBudget runs in step order (the claim says when it cut).

// DefaultPairBudget bounds a cell's same-kind pairs: about 10 CPU seconds
// at 1 ms a run.
const DefaultPairBudget = 10_000

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

// pairs lists a depth-2 cell's two-fault placements after its singles:
// total counts them all (same-kind pairs beyond the budget included),
// skipped the same-kind pairs the budget left out.
func (s scope) pairs(cell int, steps []step, vs []variant, budget int) (jobs []verifyJob, total, skipped int, err error) {
	splits := s.standing()
	for i := range splits {
		split := &placement{step: step{AtMs: 0, Label: "the start"}, variant: &splits[i]}
		sc := s.sc
		sc.Faults = split.faults(nil)
		o, err := traces.Evaluate(sc)
		if err != nil {
			return nil, 0, 0, err
		}
		for _, st := range stepsOf(o.File.Trace) {
			for k := range vs {
				jobs = append(jobs, verifyJob{cell: cell, placement: placement{st, 0, &vs[k]}, second: split})
			}
		}
	}
	n := 0
	for i, a := range steps {
		for _, b := range steps[i+1:] {
			if b.AtMs-a.AtMs > s.sc.LeaseMs {
				break
			}
			for x := range vs {
				for y := range vs {
					n++
					if n > budget {
						skipped++
						continue
					}
					jobs = append(jobs, verifyJob{cell: cell, placement: placement{a, 0, &vs[x]}, second: &placement{b, 0, &vs[y]}})
				}
			}
		}
	}
	return jobs, len(jobs) + skipped, skipped, nil
}

// pairClaim is a depth-2 cell's bounded-safe claim.
func pairClaim(c VerifyCell, opt VerifyOptions) string {
	cut := ""
	if c.PairsSkipped > 0 {
		cut = fmt.Sprintf("; same-kind pairs cut at %d, %d left out", opt.PairBudget, c.PairsSkipped)
	}
	return fmt.Sprintf("no %s at any of %d steps, alone, with a standing split, or with a second %s within a lease, breaks it (bound: %d clients, %d op each, 2 faults; %d placements%s)",
		c.Fault, c.Steps, c.Fault, opt.Clients, opt.Ops, c.Runs, cut)
}
