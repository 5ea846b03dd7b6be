package trace

import "time"

// Fault is one timed fault in a scenario's schedule. Target names a
// process, a node, or a link ("a->b" one way, "a<->b" both ways; a lone
// party in a partition is cut off from everyone). Value carries the
// kind's amount: a clock jump in ms (signed), a drift in ppm, extra
// replication lag or work in ms, a loss rate in permille.
type Fault struct {
	Kind   string `json:"kind"`
	Target string `json:"target"`
	AtMs   int64  `json:"at_ms"`
	DurMs  int64  `json:"dur_ms"`
	Value  int64  `json:"value,omitempty"`
}

// At is the fault's start in virtual time.
func (f Fault) At() time.Duration { return time.Duration(f.AtMs) * time.Millisecond }

// Dur is the fault's duration.
func (f Fault) Dur() time.Duration { return time.Duration(f.DurMs) * time.Millisecond }

// Fault kinds the sim applies.
const (
	FaultGCPause        = "gc-pause"        // process stops for Dur
	FaultSlowWork       = "slow-work"       // critical sections take Value ms longer during Dur
	FaultWatchdogStall  = "watchdog-stall"  // background threads stall for Dur
	FaultPartition      = "partition"       // messages on Target are dropped for Dur
	FaultReplicationLag = "replication-lag" // replication from Target is Value ms slower for Dur
	FaultFailover       = "failover"        // the master (Target) crashes for Dur; the sentinel promotes
	FaultClockJump      = "clock-jump"      // Target's clock jumps by Value ms
	FaultClockDrift     = "clock-drift"     // Target's clock runs Value ppm fast (negative: slow)
	FaultClientCrash    = "client-crash"    // process crashes; restarts as a new instance after Dur (0: never)
	FaultNodeRestart    = "node-restart"    // node crashes and restarts after Dur with its persistence
	FaultReplyLoss      = "reply-loss"      // Value permille of Target's messages are lost during Dur
	FaultDelay          = "delay"           // messages on link Target take Value ms longer during Dur
)
