package protocols

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// Topologies.
const (
	TopoSingle      = "single"      // one master
	TopoReplicated  = "replicated"  // one master, replicas, a sentinel
	TopoIndependent = "independent" // N masters sharing nothing
)

// Topologies lists the topology names.
func Topologies() []string { return []string{TopoSingle, TopoReplicated, TopoIndependent} }

// supports lists the topologies p runs on, its default first.
func supports(p Protocol) []string {
	if len(p.Topologies) > 0 {
		return p.Topologies
	}
	return []string{TopoSingle, TopoReplicated}
}

// SupportedTopologies lists the topologies protocol p runs on.
func SupportedTopologies(p Protocol) []string { return supports(p) }

func (sc *Scenario) normalizeTopology(p Protocol) error {
	if sc.Topology == "" {
		sc.Topology = supports(p)[0]
	}
	if !slices.Contains(Topologies(), sc.Topology) {
		return fmt.Errorf("unknown topology %q (known: %s)", sc.Topology, strings.Join(Topologies(), ", "))
	}
	if !slices.Contains(supports(p), sc.Topology) {
		return fmt.Errorf("protocol %s does not run on topology %s (it runs on %v)", p.Name, sc.Topology, supports(p))
	}
	switch sc.Topology {
	case TopoReplicated:
		if sc.Nodes == 0 {
			sc.Nodes = 2
		}
		if sc.DownAfterMs == 0 {
			sc.DownAfterMs = 5000
		}
		if sc.DiscoveryMs == 0 {
			sc.DiscoveryMs = 1000
		}
		if sc.ReplLagMs == [2]int64{} {
			sc.ReplLagMs = [2]int64{0, 5}
		}
	case TopoIndependent:
		if sc.Nodes == 0 {
			sc.Nodes = p.Masters
		}
		if sc.Nodes == 0 {
			sc.Nodes = 5
		}
	case TopoSingle:
		sc.Nodes = 0
	}
	if sc.Persistence == "" {
		sc.Persistence = sim.PersistNone
	}
	switch {
	case sc.Nodes < 0 || sc.Nodes > 15:
		return fmt.Errorf("nodes must be between 1 and 15")
	case sc.Persistence != sim.PersistNone && sc.Persistence != sim.PersistEverysec && sc.Persistence != sim.PersistAlways:
		return fmt.Errorf("unknown persistence %q (known: %s, %s, %s)", sc.Persistence, sim.PersistNone, sim.PersistEverysec, sim.PersistAlways)
	case sc.ReplLagMs[0] < 0 || sc.ReplLagMs[1] < sc.ReplLagMs[0]:
		return fmt.Errorf("replication lag range must be 0 <= min <= max")
	case sc.DownAfterMs < 0 || sc.DiscoveryMs < 0:
		return fmt.Errorf("durations must be positive")
	}
	return nil
}

// MasterNode is the Redis master of the single and replicated topologies.
const MasterNode = "redis"

// dataNodeIndependent holds the protected data when the lock uses
// independent masters, so the lock's faults do not touch the data.
const dataNodeIndependent = "redis-data"

// ReplicaName is the name of replica i (0-based).
func ReplicaName(i int) string { return MasterNode + "-r" + strconv.Itoa(i+1) }

// IndependentName is the name of independent master i (0-based).
func IndependentName(i int) string { return MasterNode + "-" + strconv.Itoa(i+1) }

// DataNode is the node that holds the protected data of sc.
func DataNode(sc Scenario) string {
	if sc.Topology == TopoIndependent || sc.DataApart {
		return dataNodeIndependent
	}
	return MasterNode
}

// addDataNode adds the separate data node of a DataApart scenario; its
// data survives the lock's faults, so what the checker finds lost there
// was lost by the lock.
func addDataNode(w *sim.World, sc Scenario, env *Env) {
	if sc.DataApart {
		w.AddNode(dataNodeIndependent)
		env.Data = dataNodeIndependent
	}
}

// LockNodes lists the nodes the lock lives on (the ones faults may hit),
// by role: the master then its replicas, or the independent masters.
func LockNodes(sc Scenario) []string {
	switch sc.Topology {
	case TopoReplicated:
		out := []string{MasterNode}
		for i := range sc.Nodes {
			out = append(out, ReplicaName(i))
		}
		return out
	case TopoIndependent:
		out := make([]string, sc.Nodes)
		for i := range out {
			out[i] = IndependentName(i)
		}
		return out
	}
	return []string{MasterNode}
}

// build adds sc's nodes to w and returns the protocol's Env.
func build(w *sim.World, sc Scenario, wl Workload) Env {
	lease := time.Duration(sc.LeaseMs) * time.Millisecond
	switch sc.Topology {
	case TopoIndependent:
		env := Env{Master: IndependentName(0), Data: dataNodeIndependent, Lease: lease}
		for i := range sc.Nodes {
			n := w.AddNode(IndependentName(i))
			n.Persistence = sc.Persistence
			env.Nodes = append(env.Nodes, n.Name)
		}
		w.AddNode(dataNodeIndependent)
		w.SetMaster(IndependentName(0))
		wl.Setup(w, sc)
		startFsync(w, sc)
		return env
	case TopoReplicated:
		m := w.AddNode(MasterNode)
		m.Persistence = sc.Persistence
		w.SetMaster(MasterNode)
		env := Env{Master: sim.Master, Nodes: []string{sim.Master}, Data: sim.Master, Lease: lease}
		addDataNode(w, sc, &env)
		wl.Setup(w, sc)
		w.SetReplication(sim.ReplicationConfig{
			LagMin: time.Duration(sc.ReplLagMs[0]) * time.Millisecond,
			LagMax: time.Duration(sc.ReplLagMs[1]) * time.Millisecond,
		})
		for i := range sc.Nodes {
			r := w.AddNode(ReplicaName(i))
			r.Persistence = sc.Persistence
			w.AddReplica(m, r)
		}
		w.StartSentinel(sim.FailoverConfig{
			PingEvery:    time.Second,
			DownAfter:    time.Duration(sc.DownAfterMs) * time.Millisecond,
			DiscoveryMax: time.Duration(sc.DiscoveryMs) * time.Millisecond,
		})
		startFsync(w, sc)
		return env
	}
	n := w.AddNode(MasterNode)
	n.Persistence = sc.Persistence
	w.SetMaster(MasterNode)
	env := Env{Master: sim.Master, Nodes: []string{MasterNode}, Data: sim.Master, Lease: lease}
	addDataNode(w, sc, &env)
	wl.Setup(w, sc)
	startFsync(w, sc)
	return env
}

// startFsync runs AOF everysec snapshots only where a restart can need them.
func startFsync(w *sim.World, sc Scenario) {
	if sc.Persistence != sim.PersistEverysec {
		return
	}
	for _, f := range sc.Faults {
		if f.Kind == trace.FaultNodeRestart || f.Kind == trace.FaultFailover {
			for _, name := range LockNodes(sc) {
				w.Node(name).StartFsync()
			}
			return
		}
	}
}
