package sim

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// An injector checks a fault against the world and returns what applies
// it at a given start time; every event it records carries id, the
// fault's place in the schedule. One per kind of trace.Kinds.
type injector func(w *World, f trace.Fault, id int) (applier, error)

// An applier applies a checked fault at a given start time.
type applier interface{ apply(at time.Duration) }

type applyFunc func(at time.Duration)

func (f applyFunc) apply(at time.Duration) { f(at) }

var injectors = map[string]injector{
	trace.FaultGCPause:        injectPause,
	trace.FaultSlowWork:       injectSlowWork,
	trace.FaultWatchdogStall:  injectStall,
	trace.FaultPartition:      injectLinks,
	trace.FaultDelay:          injectLinks,
	trace.FaultBlackhole:      injectBlackhole,
	trace.FaultReplicationLag: injectReplicationLag,
	trace.FaultFailover:       injectCrash,
	trace.FaultNodeRestart:    injectCrash,
	trace.FaultClockJump:      injectClock,
	trace.FaultClockDrift:     injectClock,
	trace.FaultClientCrash:    injectClientCrash,
	trace.FaultReplyLoss:      injectReplyLoss,
	trace.FaultInterrupt:      injectInterrupt,
}

// Injects reports whether the sim applies faults of kind.
func Injects(kind string) bool { return injectors[kind] != nil }

// Inject schedules f; the target must exist when f is injected. An
// anchored fault is armed and applied when its anchor happens. Faults are
// numbered from 1 in the order they are injected (a scenario injects its
// schedule in order, so the number is the fault's place in it), and the
// events a fault causes carry its number (trace.Event.Fault).
func (w *World) Inject(f trace.Fault) error {
	w.injected++
	id := w.injected
	if f.AtMs < 0 || f.DurMs < 0 {
		return fmt.Errorf("fault %s: negative time", f.Kind)
	}
	inj := injectors[f.Kind]
	if inj == nil {
		return fmt.Errorf("unknown fault kind %q (known: %s)", f.Kind, strings.Join(trace.KindNames(), ", "))
	}
	apply, err := inj(w, f, id)
	if err != nil {
		return fmt.Errorf("fault %s: %v", f.Kind, err)
	}
	if f.Anchor == nil {
		apply.apply(f.At())
		return nil
	}
	if err := f.Anchor.Check(); err != nil {
		return fmt.Errorf("fault %s: %v", f.Kind, err)
	}
	if w.process(f.Anchor.Party) == nil {
		return fmt.Errorf("fault %s: anchor: no process %q", f.Kind, f.Anchor.Party)
	}
	w.anchors = append(w.anchors, &armed{f: f, id: id, apply: apply})
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
	t, err := trace.ParseTarget(target)
	if err != nil {
		return nil, err
	}
	for _, p := range t.Parties {
		if !w.known(p) {
			return nil, fmt.Errorf("unknown party %q in %q", p, target)
		}
	}
	a := t.Parties[0]
	switch t.Sep {
	case "<->":
		return [][2]string{{a, t.Parties[1]}, {t.Parties[1], a}}, nil
	case "->":
		return [][2]string{{a, t.Parties[1]}}, nil
	}
	var out [][2]string
	for _, p := range w.parties() {
		if p != a {
			out = append(out, [2]string{a, p}, [2]string{p, a})
		}
	}
	return out, nil
}
