package trace

import (
	"fmt"
	"strings"
	"time"
)

// Fault is one fault in a scenario's schedule. Target names a process, a
// node, or a link ("a->b" one way, "a<->b" both ways; a lone party in a
// partition is cut off from everyone). Value carries the kind's amount: a
// clock jump in ms (signed), a drift in ppm, extra replication lag or work
// in ms, a loss rate in permille. A fault with an Anchor starts when its
// anchor event happens (plus Anchor.AfterMs) instead of at AtMs.
type Fault struct {
	Kind   string  `json:"kind"`
	Target string  `json:"target"`
	AtMs   int64   `json:"at_ms"`
	DurMs  int64   `json:"dur_ms"`
	Value  int64   `json:"value,omitempty"`
	Anchor *Anchor `json:"anchor,omitempty"`
}

// At is the fault's start in virtual time (of an unanchored fault).
func (f Fault) At() time.Duration { return time.Duration(f.AtMs) * time.Millisecond }

// Dur is the fault's duration.
func (f Fault) Dur() time.Duration { return time.Duration(f.DurMs) * time.Millisecond }

// Fault kinds the sim applies. Each is declared once, in Kinds.
const (
	FaultGCPause        = "gc-pause"        // process stops for Dur
	FaultSlowWork       = "slow-work"       // critical sections take Value ms longer during Dur
	FaultWatchdogStall  = "watchdog-stall"  // background threads stall for Dur
	FaultPartition      = "partition"       // messages on Target are dropped for Dur
	FaultBlackhole      = "blackhole"       // a node answers nothing (requests hang) for Dur
	FaultReplicationLag = "replication-lag" // replication from Target is Value ms slower for Dur
	FaultFailover       = "failover"        // the master (Target) crashes for Dur; the sentinel promotes
	FaultClockJump      = "clock-jump"      // Target's clock jumps by Value ms
	FaultClockDrift     = "clock-drift"     // Target's clock runs Value ppm fast (negative: slow)
	FaultClientCrash    = "client-crash"    // process crashes; restarts as a new instance after Dur (0: never)
	FaultNodeRestart    = "node-restart"    // node crashes (refusing connections) and restarts after Dur with its persistence
	FaultReplyLoss      = "reply-loss"      // Value permille of Target's messages are lost during Dur
	FaultDelay          = "delay"           // messages on link Target take Value ms longer during Dur
	FaultInterrupt      = "interrupt"       // Target's application threads are interrupted (Thread.interrupt())
)

// Target syntaxes: what a fault kind's Target may name.
const (
	TargetProcess       = "process"          // a client process
	TargetNode          = "node"             // a Redis node, or "master"
	TargetNodeOrProcess = "node|process"     // a clock: a node's or a process's
	TargetNodeOrService = "node|service"     // a replying party
	TargetLink          = "party|a->b|a<->b" // a lone party (cut from everyone) or a link
)

// Shrink rules: what a shrinker may do to one fault besides dropping it.
type Shrink uint8

const (
	ShrinkDrop  Shrink = 1 << iota // remove the fault
	ShrinkDur                      // shorten its duration (a client crash's restart delay: toward never)
	ShrinkAt                       // move it earlier
	ShrinkValue                    // lower its amount toward 0
)

// KindSpec declares one fault kind: its name, what its Target names, what
// shrinking may do to it, the topology it runs on best ("" any; Needs: it
// means nothing elsewhere), and how the trace shows it (Cites: the event
// kind the injector records, and the prefix of that event's Detail when
// several kinds share an event kind).
type KindSpec struct {
	Name     string
	Target   string
	Shrink   Shrink
	Topology string
	Needs    bool
	CiteKind string
	CiteDet  string // Detail prefix; "" matches any
	Doc      string
}

var kinds = []KindSpec{
	{FaultGCPause, TargetProcess, ShrinkDrop | ShrinkDur | ShrinkAt, "", false, EvPause, FaultGCPause, "the process stops for dur_ms"},
	{FaultSlowWork, TargetProcess, ShrinkDrop | ShrinkDur | ShrinkAt | ShrinkValue, "", false, EvFault, FaultSlowWork + ":", "critical sections take value ms longer during dur_ms"},
	{FaultWatchdogStall, TargetProcess, ShrinkDrop | ShrinkDur | ShrinkAt, "", false, EvFault, FaultWatchdogStall + ":", "background threads stall for dur_ms"},
	{FaultPartition, TargetLink, ShrinkDrop | ShrinkDur | ShrinkAt, TopoReplicated, false, EvPartition, FaultPartition, "messages on the target are dropped for dur_ms"},
	{FaultBlackhole, TargetNode, ShrinkDrop | ShrinkDur | ShrinkAt, "", false, EvPartition, FaultBlackhole, "a node answers nothing for dur_ms: requests to it hang until the client's timeout"},
	{FaultReplicationLag, TargetNode, ShrinkDrop | ShrinkDur | ShrinkAt | ShrinkValue, TopoReplicated, true, EvFault, FaultReplicationLag + ":", "replication from the target is value ms slower for dur_ms"},
	{FaultFailover, TargetNode, ShrinkDrop | ShrinkDur | ShrinkAt, TopoReplicated, true, EvNodeCrash, "", "the master crashes for dur_ms; the sentinel promotes a replica"},
	{FaultClockJump, TargetNodeOrProcess, ShrinkDrop | ShrinkAt | ShrinkValue, "", false, EvClockJump, "", "the target's clock jumps by value ms"},
	{FaultClockDrift, TargetNodeOrProcess, ShrinkDrop | ShrinkAt | ShrinkValue, "", false, EvFault, driftPrefix, "the target's clock runs value ppm fast (negative: slow)"},
	{FaultClientCrash, TargetProcess, ShrinkDrop | ShrinkDur | ShrinkAt, "", false, EvCrash, "", "the process crashes; restarts after dur_ms (0: never)"},
	{FaultNodeRestart, TargetNode, ShrinkDrop | ShrinkDur | ShrinkAt, "", false, EvNodeCrash, "", "the node crashes, refusing connections, and restarts after dur_ms with its persistence"},
	{FaultReplyLoss, TargetNodeOrService, ShrinkDrop | ShrinkDur | ShrinkAt, "", false, EvFault, FaultReplyLoss + ":", "value permille of the target's replies are lost during dur_ms"},
	{FaultDelay, TargetLink, ShrinkDrop | ShrinkDur | ShrinkAt | ShrinkValue, "", false, EvPartition, FaultDelay, "messages on the link take value ms longer during dur_ms"},
	{FaultInterrupt, TargetProcess, ShrinkDrop | ShrinkAt, "", false, EvFault, FaultInterrupt + ":", "the process's application threads are interrupted: a thread waiting for a reply gets InterruptedException at once; its command still runs and its callbacks still fire"},
}

// TopoReplicated is the topology name of a master with replicas and a
// sentinel (the protocols package's TopoReplicated).
const TopoReplicated = "replicated"

// Kinds lists every fault kind in declaration order.
func Kinds() []KindSpec { return append([]KindSpec(nil), kinds...) }

// KindNames lists the fault kind names in declaration order.
func KindNames() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.Name
	}
	return out
}

// LookupKind returns the declaration of kind.
func LookupKind(kind string) (KindSpec, bool) {
	for _, k := range kinds {
		if k.Name == kind {
			return k, true
		}
	}
	return KindSpec{}, false
}

// Cites reports whether e is the event a fault of kind k records when it
// is applied: the checker cites faults through it.
func (k KindSpec) Cites(e Event) bool {
	return e.Kind == k.CiteKind && strings.HasPrefix(e.Detail, k.CiteDet)
}

// CitesFault reports whether e records a fault of kind.
func CitesFault(e Event, kind string) bool {
	k, ok := LookupKind(kind)
	return ok && k.Cites(e)
}

// Target is a parsed fault target: one party, or a link between two.
type Target struct {
	Parties []string // one party, or the two ends of a link
	Sep     string   // "", "->" or "<->"
}

// ParseTarget splits a fault target into its parties.
func ParseTarget(s string) (Target, error) {
	for _, sep := range []string{"<->", "->"} {
		if a, b, ok := strings.Cut(s, sep); ok {
			if a == "" || b == "" || strings.Contains(b, "->") {
				return Target{}, fmt.Errorf("bad link %q", s)
			}
			return Target{Parties: []string{a, b}, Sep: sep}, nil
		}
	}
	if s == "" {
		return Target{}, fmt.Errorf("empty fault target")
	}
	return Target{Parties: []string{s}}, nil
}

// String renders t back to its syntax.
func (t Target) String() string { return strings.Join(t.Parties, t.Sep) }

// Link reports whether t names a link.
func (t Target) Link() bool { return t.Sep != "" }

// Names reports whether party is one of t's parties.
func (t Target) Names(party string) bool {
	for _, p := range t.Parties {
		if p == party {
			return true
		}
	}
	return false
}

// Rename replaces party from by to; ok is false when t does not name from.
func (t Target) Rename(from, to string) (Target, bool) {
	out := Target{Parties: append([]string(nil), t.Parties...), Sep: t.Sep}
	hit := false
	for i, p := range out.Parties {
		if p == from {
			out.Parties[i], hit = to, true
		}
	}
	return out, hit
}
