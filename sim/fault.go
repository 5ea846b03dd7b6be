package sim

import (
	"fmt"
	"time"
)

// Fault is one timed fault in a scenario's schedule.
type Fault struct {
	Kind   string `json:"kind"`
	Target string `json:"target"`
	AtMs   int64  `json:"at_ms"`
	DurMs  int64  `json:"dur_ms"`
}

// At is the fault's start in virtual time.
func (f Fault) At() time.Duration { return time.Duration(f.AtMs) * time.Millisecond }

// Dur is the fault's duration.
func (f Fault) Dur() time.Duration { return time.Duration(f.DurMs) * time.Millisecond }

// Fault kinds the sim applies.
const (
	FaultGCPause = "gc-pause"
)

// Inject schedules f. Targets name processes, nodes or links.
func (w *World) Inject(f Fault) error {
	if f.AtMs < 0 || f.DurMs < 0 {
		return fmt.Errorf("fault %s: negative time", f.Kind)
	}
	switch f.Kind {
	case FaultGCPause:
		p := w.process(f.Target)
		if p == nil {
			return fmt.Errorf("fault %s: no process %q", f.Kind, f.Target)
		}
		w.schedule(f.At(), nil, func() { p.Pause(f.Dur(), f.Kind) })
		return nil
	}
	return fmt.Errorf("unknown fault kind %q", f.Kind)
}

func (w *World) process(name string) *Process {
	for _, p := range w.procs {
		if p.Name == name {
			return p
		}
	}
	return nil
}
