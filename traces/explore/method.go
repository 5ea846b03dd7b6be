package explore

import (
	"fmt"
	"slices"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// One method behind every verdict. explore, matrix and verify judge a
// protocol under a fault kind (a cell) with the same scenarios, the same
// judge and the same words:
//
//   - the scenarios: CellScenario is a cell's generator, the one
//     `locksim explore --protocol P --faults F` runs (a swarm: every
//     parameter the user leaves unset, from hold time and intensity to
//     clients and the sentinel's timing, drawn per seed). A matrix cell
//     is Explore of it at the cell's budget; verify fixes the drawn
//     parameters at the points of its bound (verify.go) and places every
//     single fault instead of drawing them;
//   - the cells: CellTopology decides once where a fault kind is judged
//     and when it is n/a;
//   - the judge: Judge, run by run, in all three (a fenced lock's
//     overlaps are not unsafe by themselves; data the store lost is data
//     loss, not the lock's failure);
//   - the words: Verdict (verdict.go).

// cellScenario is the generator of one cell: protocol under fault on
// workload, everything else drawn from each seed. fault "none" (or "")
// draws no fault. It does not say whether the cell is n/a: CellTopology
// does.
func cellScenario(protocol, workload, fault string) protocols.Scenario {
	sc := protocols.Scenario{Protocol: protocol, Workload: workload, Swarm: true}
	if fault != "" && fault != "none" {
		sc.FaultKinds = []string{fault}
	}
	return sc
}

// cellTopology is the topology a fault kind is judged on for protocol p,
// or why the cell is n/a. A kind that means something on one topology
// only (trace.KindSpec.Needs: a failover promotes a replica, a
// replication lag delays one) runs there, or is n/a when the protocol
// does not run there: on independent masters a "failover" would be a
// master's crash and restart, which is node-restart's cell. A kind that
// runs best on a topology (a partition's split brain needs a sentinel)
// runs there when the protocol can. Anything else runs on the protocol's
// own topology. It is the topology Normalize chooses for CellScenario.
func cellTopology(p protocols.Protocol, kind string) (topology, na string) {
	supported := protocols.SupportedTopologies(p)
	k, ok := trace.LookupKind(kind)
	if !ok || k.Topology == "" {
		return supported[0], ""
	}
	if slices.Contains(supported, k.Topology) {
		return k.Topology, ""
	}
	if k.Needs {
		return "", fmt.Sprintf("%s needs the %s topology; %s runs on %v", kind, k.Topology, p.Name, supported)
	}
	return supported[0], ""
}

// naKinds splits the fault kinds of a scenario that would run on
// topology into those that mean something there and the reasons of those
// that do not.
func naKinds(p protocols.Protocol, topology string, kinds []string) (keep, na []string) {
	for _, kind := range kinds {
		k, ok := trace.LookupKind(kind)
		if ok && k.Needs && k.Topology != topology {
			why := fmt.Sprintf("%s needs the %s topology; %s runs on %s here", kind, k.Topology, p.Name, topology)
			if _, reason := cellTopology(p, kind); reason != "" {
				why = reason
			}
			na = append(na, why)
			continue
		}
		keep = append(keep, kind)
	}
	return keep, na
}

// row is one protocol of a matrix or a verification: a catalog
// protocol, or a lock a protocol file describes.
type row struct {
	p    protocols.Protocol
	file *protocols.ProtocolFile
}

// rowProtocols are the catalog protocols called names, then the files'.
func rowProtocols(names []string, files []*protocols.ProtocolFile) ([]row, error) {
	var out []row
	for _, name := range names {
		p, err := protocols.Lookup(name)
		if err != nil {
			return nil, err
		}
		out = append(out, row{p: p})
	}
	for _, f := range files {
		if err := f.Description.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %v", f.Path, err)
		}
		out = append(out, row{p: f.Protocol(), file: f})
	}
	return out, nil
}
