package protocols

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// Bounds of a scenario's numbers, chosen so that no sum or product the
// simulator forms from them (times in ns as int64) can overflow.
const (
	MaxDurationMs  = 30 * 24 * 3600 * 1000 // 30 days: any single duration, time or fault length
	MaxClockJumpMs = MaxDurationMs
	MaxDriftPPM    = 1_000_000
	MaxEventBudget = 1_000_000_000
	MaxFaults      = 100_000
	MaxStock       = 1_000_000_000
	MaxAttempts    = 1_000_000
	maxLatency     = time.Duration(MaxDurationMs) * time.Millisecond
)

// validateNumbers refuses values that are out of range, not a number, or
// large enough to overflow the simulator's arithmetic, and empty fault
// kinds.
func (sc Scenario) validateNumbers() error {
	durs := []struct {
		name string
		v    int64
	}{
		{"lease_ms", sc.LeaseMs}, {"work_ms", sc.WorkMs}, {"think_ms", sc.ThinkMs}, {"stagger_ms", sc.StaggerMs},
		{"retry_ms", sc.RetryMs}, {"timeout_ms", sc.TimeoutMs}, {"horizon_ms", sc.HorizonMs},
		{"down_after_ms", sc.DownAfterMs}, {"discovery_ms", sc.DiscoveryMs},
		{"repl_lag_ms[0]", sc.ReplLagMs[0]}, {"repl_lag_ms[1]", sc.ReplLagMs[1]},
	}
	for _, d := range durs {
		if d.v < 0 || d.v > MaxDurationMs {
			return fmt.Errorf("%s %d is out of range 0 to %d", d.name, d.v, MaxDurationMs)
		}
	}
	n := sc.Network
	switch {
	case sc.StaggerMs > 0 && int64(sc.Clients)*sc.StaggerMs > MaxDurationMs:
		return fmt.Errorf("stagger_ms %d times %d clients is past %d ms", sc.StaggerMs, sc.Clients, MaxDurationMs)
	case sc.Attempts < 0 || sc.Attempts > MaxAttempts:
		return fmt.Errorf("attempts %d is out of range 0 to %d", sc.Attempts, MaxAttempts)
	case sc.Stock < 0 || sc.Stock > MaxStock:
		return fmt.Errorf("stock %d is out of range 0 to %d", sc.Stock, MaxStock)
	case n.LatencyMin < 0 || n.LatencyMax > maxLatency || n.LatencyMin > n.LatencyMax:
		return fmt.Errorf("network latency must satisfy 0 <= min <= max <= %d ms, got %v..%v", MaxDurationMs, n.LatencyMin, n.LatencyMax)
	case math.IsNaN(n.LossRate):
		return errors.New("network loss rate is not a number")
	case math.IsNaN(sc.Intensity) || sc.Intensity < 0 || sc.Intensity > 100:
		return fmt.Errorf("intensity %v is out of range (0, 100]", sc.Intensity)
	case sc.MaxEvents < 0 || sc.MaxEvents > MaxEventBudget:
		return fmt.Errorf("max_events %d is out of range 1 to %d", sc.MaxEvents, MaxEventBudget)
	case len(sc.Faults) > MaxFaults:
		return fmt.Errorf("%d faults: at most %d", len(sc.Faults), MaxFaults)
	}
	for _, k := range sc.FaultKinds {
		if k == "" {
			return errors.New("a fault kind is empty")
		}
	}
	for i, f := range sc.Faults {
		if err := validateFault(f); err != nil {
			return fmt.Errorf("fault %d (%s): %v", i+1, f.Kind, err)
		}
	}
	return nil
}

func validateFault(f trace.Fault) error {
	switch {
	case f.Kind == "":
		return errors.New("no kind")
	case f.AtMs < 0 || f.AtMs > MaxDurationMs:
		return fmt.Errorf("at_ms %d is out of range 0 to %d", f.AtMs, MaxDurationMs)
	case f.DurMs < 0 || f.DurMs > MaxDurationMs:
		return fmt.Errorf("dur_ms %d is out of range 0 to %d", f.DurMs, MaxDurationMs)
	}
	lo, hi := int64(0), int64(MaxDurationMs)
	switch f.Kind {
	case trace.FaultClockJump:
		lo, hi = -MaxClockJumpMs, MaxClockJumpMs
	case trace.FaultClockDrift:
		lo, hi = -MaxDriftPPM+1, MaxDriftPPM
	case trace.FaultReplyLoss:
		hi = 1000
	}
	if f.Value < lo || f.Value > hi {
		return fmt.Errorf("value %d is out of range %d to %d", f.Value, lo, hi)
	}
	return nil
}
