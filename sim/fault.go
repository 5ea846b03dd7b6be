package sim

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// Inject schedules f; the target must exist when f is injected.
func (w *World) Inject(f trace.Fault) error {
	if f.AtMs < 0 || f.DurMs < 0 {
		return fmt.Errorf("fault %s: negative time", f.Kind)
	}
	at, dur := f.At(), f.Dur()
	proc := func() (*Process, error) {
		if p := w.process(f.Target); p != nil {
			return p, nil
		}
		return nil, fmt.Errorf("fault %s: no process %q", f.Kind, f.Target)
	}
	node := func() (*Node, error) {
		if f.Target == Master {
			return nil, nil // resolved when the fault fires
		}
		if n := w.nodes[f.Target]; n != nil {
			return n, nil
		}
		return nil, fmt.Errorf("fault %s: no node %q", f.Kind, f.Target)
	}
	resolve := func(n *Node) *Node {
		if n == nil {
			return w.nodes[w.master]
		}
		return n
	}
	record := func(party, detail string) {
		w.rec.event(trace.Event{Kind: trace.EvFault, Party: party, Detail: f.Kind + ": " + detail, DurNs: int64(dur)})
	}
	switch f.Kind {
	case trace.FaultGCPause:
		p, err := proc()
		if err != nil {
			return err
		}
		w.schedule(at, nil, func() { p.Pause(dur, f.Kind) })
	case trace.FaultSlowWork:
		p, err := proc()
		if err != nil {
			return err
		}
		extra := time.Duration(f.Value) * time.Millisecond
		w.schedule(at, nil, func() {
			p.SlowWork += extra
			record(p.Name, fmt.Sprintf("critical sections %d ms slower", f.Value))
		})
		w.schedule(at+dur, nil, func() { p.SlowWork -= extra })
	case trace.FaultWatchdogStall:
		p, err := proc()
		if err != nil {
			return err
		}
		w.schedule(at, nil, func() { p.Stall(dur) })
	case trace.FaultPartition, trace.FaultDelay:
		links, err := w.links(f.Target)
		if err != nil {
			return fmt.Errorf("fault %s: %v", f.Kind, err)
		}
		w.schedule(at, nil, func() {
			for _, l := range links {
				if f.Kind == trace.FaultPartition {
					w.net.Block(l[0], l[1])
				} else {
					w.net.SetDelay(l[0], l[1], time.Duration(f.Value)*time.Millisecond)
				}
			}
			w.rec.event(trace.Event{Kind: trace.EvPartition, Party: f.Target, Detail: f.Kind, DurNs: int64(dur)})
		})
		w.schedule(at+dur, nil, func() {
			for _, l := range links {
				if f.Kind == trace.FaultPartition {
					w.net.Unblock(l[0], l[1])
				} else {
					w.net.SetDelay(l[0], l[1], 0)
				}
			}
			w.rec.event(trace.Event{Kind: trace.EvHeal, Party: f.Target, Detail: f.Kind})
		})
	case trace.FaultReplicationLag:
		n, err := node()
		if err != nil {
			return err
		}
		extra := time.Duration(f.Value) * time.Millisecond
		var hit []*replLink
		w.schedule(at, nil, func() {
			m := resolve(n)
			hit = append([]*replLink(nil), m.links...)
			for _, l := range hit {
				l.extraLag += extra
			}
			record(m.Name, fmt.Sprintf("replication %d ms slower", f.Value))
		})
		w.schedule(at+dur, nil, func() {
			for _, l := range hit {
				l.extraLag -= extra
			}
		})
	case trace.FaultFailover, trace.FaultNodeRestart:
		n, err := node()
		if err != nil {
			return err
		}
		w.schedule(at, nil, func() { resolve(n).Crash(dur) })
	case trace.FaultClockJump, trace.FaultClockDrift:
		if n := w.nodes[f.Target]; n != nil || f.Target == Master {
			w.schedule(at, nil, func() {
				m := resolve(n)
				if f.Kind == trace.FaultClockJump {
					m.JumpClock(time.Duration(f.Value) * time.Millisecond)
				} else {
					m.SetDrift(f.Value)
				}
			})
			return nil
		}
		p, err := proc()
		if err != nil {
			return fmt.Errorf("fault %s: no node or process %q", f.Kind, f.Target)
		}
		w.schedule(at, nil, func() {
			if f.Kind == trace.FaultClockJump {
				p.JumpClock(time.Duration(f.Value) * time.Millisecond)
			} else {
				p.SetDrift(f.Value)
			}
		})
	case trace.FaultClientCrash:
		p, err := proc()
		if err != nil {
			return err
		}
		restart := dur
		if restart == 0 {
			restart = -1
		}
		w.schedule(at, nil, func() { p.Crash(restart) })
	case trace.FaultReplyLoss:
		if w.nodes[f.Target] == nil && w.services[f.Target] == nil && f.Target != Master {
			return fmt.Errorf("fault %s: no node or service %q", f.Kind, f.Target)
		}
		rate := float64(f.Value) / 1000
		if f.Value == 0 {
			rate = 1
		}
		var party string
		w.schedule(at, nil, func() {
			party = f.Target
			if party == Master {
				party = w.master
			}
			w.net.SetLossFrom(party, rate)
			record(party, fmt.Sprintf("%.0f%% of its replies lost", rate*100))
		})
		w.schedule(at+dur, nil, func() { w.net.SetLossFrom(party, 0) })
	default:
		return fmt.Errorf("unknown fault kind %q", f.Kind)
	}
	return nil
}

func (w *World) process(name string) *Process {
	for _, p := range w.procs {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// parties lists every process, node and service name.
func (w *World) parties() []string {
	var out []string
	for _, p := range w.procs {
		out = append(out, p.Name)
	}
	for _, n := range w.nodeList() {
		out = append(out, n.Name)
	}
	var services []string
	for name := range w.services {
		services = append(services, name)
	}
	sort.Strings(services)
	return append(out, services...)
}

func (w *World) known(party string) bool {
	return w.process(party) != nil || w.nodes[party] != nil || w.services[party] != nil
}

// links turns a partition target into directed (from, to) pairs.
func (w *World) links(target string) ([][2]string, error) {
	if a, b, ok := strings.Cut(target, "<->"); ok {
		if !w.known(a) || !w.known(b) {
			return nil, fmt.Errorf("unknown party in %q", target)
		}
		return [][2]string{{a, b}, {b, a}}, nil
	}
	if a, b, ok := strings.Cut(target, "->"); ok {
		if !w.known(a) || !w.known(b) {
			return nil, fmt.Errorf("unknown party in %q", target)
		}
		return [][2]string{{a, b}}, nil
	}
	if !w.known(target) {
		return nil, fmt.Errorf("unknown party %q", target)
	}
	var out [][2]string
	for _, p := range w.parties() {
		if p != target {
			out = append(out, [2]string{target, p}, [2]string{p, target})
		}
	}
	return out, nil
}
