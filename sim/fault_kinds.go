package sim

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// The injectors of the process faults.

func (w *World) targetProcess(f trace.Fault) (*Process, error) {
	if p := w.process(f.Target); p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("no process %q", f.Target)
}

func injectPause(w *World, f trace.Fault, id int) (applier, error) {
	p, err := w.targetProcess(f)
	return &pauseFault{p: p, d: f.Dur(), kind: f.Kind, id: id}, err
}

// pauseFault is a gc-pause of p for d: one value, its scheduled step a
// typed event (the commonest fault, injected on most runs).
type pauseFault struct {
	p    *Process
	d    time.Duration
	kind string
	id   int
}

func (pf *pauseFault) apply(at time.Duration) {
	w := pf.p.w
	e := w.alloc.event()
	e.at, e.do, e.ref = at, doPause, pf
	w.scheduleEvent(e)
}

func injectStall(w *World, f trace.Fault, id int) (applier, error) {
	p, err := w.targetProcess(f)
	return applyFunc(func(at time.Duration) { w.schedule(at, nil, func() { p.stall(f.Dur(), id) }) }), err
}

func injectSlowWork(w *World, f trace.Fault, id int) (applier, error) {
	p, err := w.targetProcess(f)
	extra := time.Duration(f.Value) * time.Millisecond
	return applyFunc(func(at time.Duration) {
		w.schedule(at, nil, func() {
			p.SlowWork += extra
			w.recordFault(f, id, p.Name, fmt.Sprintf("critical sections %d ms slower", f.Value))
		})
		w.schedule(at+f.Dur(), nil, func() { p.SlowWork -= extra })
	}), err
}

func injectClientCrash(w *World, f trace.Fault, id int) (applier, error) {
	p, err := w.targetProcess(f)
	restart := f.Dur()
	if restart == 0 {
		restart = -1
	}
	return applyFunc(func(at time.Duration) { w.schedule(at, nil, func() { p.crash(restart, id) }) }), err
}

// recordFault records an applied fault whose effect has no event of its
// own; its Detail starts with the kind (trace.KindSpec.CiteDet).
func (w *World) recordFault(f trace.Fault, id int, party, detail string) {
	w.rec.event(trace.FaultApplied(party, f.Kind, detail, f.Dur()).WithFault(id))
}

// The injectors of the network faults.

func injectLinks(w *World, f trace.Fault, id int) (applier, error) {
	links, err := w.links(f.Target)
	set := func(on bool) {
		for _, l := range links {
			switch {
			case f.Kind == trace.FaultDelay && on:
				w.net.SetDelay(l[0], l[1], time.Duration(f.Value)*time.Millisecond)
			case f.Kind == trace.FaultDelay:
				w.net.SetDelay(l[0], l[1], 0)
			case on:
				w.net.block(l[0], l[1], id)
			default:
				w.net.unblock(l[0], l[1], id)
			}
		}
	}
	return applyFunc(func(at time.Duration) {
		w.schedule(at, nil, func() {
			set(true)
			w.rec.event(trace.Partition(f.Target, f.Kind, f.Dur()).WithFault(id))
		})
		w.schedule(at+f.Dur(), nil, func() {
			set(false)
			w.rec.event(trace.Heal(f.Target, f.Kind).WithFault(id))
		})
	}), err
}

// injectBlackhole cuts a node (or the master) from everyone: requests to
// it hang until the client's timeout, as behind a dead switch port.
func injectBlackhole(w *World, f trace.Fault, id int) (applier, error) {
	n, err := w.targetNode(f)
	if err != nil {
		return nil, err
	}
	return applyFunc(func(at time.Duration) {
		var links [][2]string
		var name string
		w.schedule(at, nil, func() {
			name = w.resolveNode(n).Name
			links, _ = w.links(name)
			for _, l := range links {
				w.net.block(l[0], l[1], id)
			}
			w.rec.event(trace.Partition(name, f.Kind, f.Dur()).WithFault(id))
		})
		w.schedule(at+f.Dur(), nil, func() {
			for _, l := range links {
				w.net.unblock(l[0], l[1], id)
			}
			w.rec.event(trace.Heal(name, f.Kind).WithFault(id))
		})
	}), nil
}

func injectReplyLoss(w *World, f trace.Fault, id int) (applier, error) {
	if w.nodes[f.Target] == nil && w.services[f.Target] == nil && f.Target != Master {
		return nil, fmt.Errorf("no node or service %q", f.Target)
	}
	rate := float64(f.Value) / 1000
	if f.Value == 0 {
		rate = 1
	}
	return applyFunc(func(at time.Duration) {
		var party string
		w.schedule(at, nil, func() {
			party = f.Target
			if party == Master {
				party = w.master
			}
			w.net.setLossFrom(party, rate, id)
			w.recordFault(f, id, party, fmt.Sprintf("%.0f%% of its replies lost", rate*100))
		})
		w.schedule(at+f.Dur(), nil, func() { w.net.setLossFrom(party, 0, 0) })
	}), nil
}

// The injectors of the node faults.

// targetNode returns f's node; nil for Master, which resolves to the
// master of the moment the fault fires.
func (w *World) targetNode(f trace.Fault) (*Node, error) {
	if f.Target == Master {
		return nil, nil
	}
	if n := w.nodes[f.Target]; n != nil {
		return n, nil
	}
	return nil, fmt.Errorf("no node %q", f.Target)
}

func (w *World) resolveNode(n *Node) *Node {
	if n == nil {
		return w.nodes[w.master]
	}
	return n
}

func injectCrash(w *World, f trace.Fault, id int) (applier, error) {
	n, err := w.targetNode(f)
	return applyFunc(func(at time.Duration) { w.schedule(at, nil, func() { w.resolveNode(n).crash(f.Dur(), id) }) }), err
}

func injectReplicationLag(w *World, f trace.Fault, id int) (applier, error) {
	n, err := w.targetNode(f)
	extra := time.Duration(f.Value) * time.Millisecond
	return applyFunc(func(at time.Duration) {
		var hit []*replLink
		w.schedule(at, nil, func() {
			m := w.resolveNode(n)
			hit = append([]*replLink(nil), m.links...)
			for _, l := range hit {
				l.extraLag += extra
			}
			w.recordFault(f, id, m.Name, fmt.Sprintf("replication %d ms slower", f.Value))
		})
		w.schedule(at+f.Dur(), nil, func() {
			for _, l := range hit {
				l.extraLag -= extra
			}
		})
	}), err
}

// injectClock jumps or drifts a node's clock, or a process's.
func injectClock(w *World, f trace.Fault, id int) (applier, error) {
	jump := f.Kind == trace.FaultClockJump
	d := time.Duration(f.Value) * time.Millisecond
	if n := w.nodes[f.Target]; n != nil || f.Target == Master {
		return applyFunc(func(at time.Duration) {
			w.schedule(at, nil, func() {
				if m := w.resolveNode(n); jump {
					m.jumpClock(d, id)
				} else {
					m.setDrift(f.Value, id)
				}
			})
		}), nil
	}
	p := w.process(f.Target)
	if p == nil {
		return nil, fmt.Errorf("no node or process %q", f.Target)
	}
	return applyFunc(func(at time.Duration) {
		w.schedule(at, nil, func() {
			if jump {
				p.jumpClock(d, id)
			} else {
				p.setDrift(f.Value, id)
			}
		})
	}), nil
}
