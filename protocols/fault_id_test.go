package protocols

import (
	"testing"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// idTarget is a target of the syntax a fault kind takes.
func idTarget(k trace.KindSpec) string {
	switch k.Target {
	case trace.TargetProcess:
		return "c1"
	case trace.TargetLink:
		return "c1<->" + MasterNode
	}
	return MasterNode
}

// TestFaultIDOnEveryKind runs one scenario per fault kind whose schedule
// holds a gc-pause of c3 first and the kind's fault second: the event the
// fault table cites for the kind carries id 2, the pause's carries 1, and
// no event names a fault the schedule does not hold.
func TestFaultIDOnEveryKind(t *testing.T) {
	for _, k := range trace.Kinds() {
		t.Run(k.Name, func(t *testing.T) {
			f := trace.Fault{Kind: k.Name, Target: idTarget(k), AtMs: 300, DurMs: 2000, Value: 500}
			if k.Name == trace.FaultFailover {
				f.DurMs = 9000 // outlasts the sentinel's down-after
			}
			sc := Scenario{Seed: 1, Protocol: "setnx-lua-del", Topology: k.Topology, Faults: []trace.Fault{
				{Kind: trace.FaultGCPause, Target: "c3", AtMs: 100, DurMs: 50}, f,
			}}
			_, tr, err := Run(sc)
			if err != nil {
				t.Fatal(err)
			}
			cited := map[int]int{}
			for _, e := range tr.Events {
				if e.Fault < 0 || e.Fault > 2 {
					t.Fatalf("event %+v names fault %d of a schedule of 2", e, e.Fault)
				}
				if k.Cites(e) && e.Fault == 2 || e.Kind == trace.EvPause && e.Party == "c3" && e.Fault == 1 {
					cited[e.Fault]++
				}
			}
			if cited[1] != 1 || cited[2] == 0 {
				t.Fatalf("events citing the pause (fault 1): %d, citing %s (fault 2): %d", cited[1], k.Name, cited[2])
			}
		})
	}
}

// An anchored fault's resolution and effect carry its id; so do the
// failover a master's crash leads to and the drops a partition causes.
func TestFaultIDFollowsCause(t *testing.T) {
	sc := Scenario{Seed: 1, Protocol: "setnx-lua-del", Topology: TopoReplicated, Faults: []trace.Fault{
		{Kind: trace.FaultPartition, Target: "c3<->" + MasterNode, AtMs: 200, DurMs: 3000},
		{Kind: trace.FaultFailover, Target: sim.Master, DurMs: 9000,
			Anchor: &trace.Anchor{Party: "c1", Op: "acquire", Phase: trace.PhaseReturn, Nth: 1}},
	}}
	_, tr, err := Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]int{}
	for _, e := range tr.Events {
		switch {
		case e.Kind == trace.EvDrop && e.Fault == 1:
			by["drop"]++
		case e.Kind == trace.EvFault && e.Fault == 2 && e.FaultKind() == "anchor":
			by["anchor"]++
		case (e.Kind == trace.EvMasterDown || e.Kind == trace.EvPromote || e.Kind == trace.EvDiscover) && e.Fault == 2:
			by[e.Kind]++
		case e.Kind == trace.EvMasterDown || e.Kind == trace.EvPromote:
			t.Fatalf("%s carries fault %d, want 2 (the master's crash)", e.Kind, e.Fault)
		}
	}
	for _, kind := range []string{"drop", "anchor", trace.EvMasterDown, trace.EvPromote, trace.EvDiscover} {
		if by[kind] == 0 {
			t.Errorf("no %s event carries its fault's id: %v", kind, by)
		}
	}
}
