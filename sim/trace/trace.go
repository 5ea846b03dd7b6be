// Package trace holds what a run records: events, client histories, the
// fault schedule's vocabulary, and the trace hash. It is a leaf: the checker
// reads traces without importing the simulator.
package trace

import (
	"strings"
	"time"
)

// Event is one thing that happened in the world, at a virtual time (ns).
type Event struct {
	T      int64    `json:"t"`
	Kind   string   `json:"kind"`
	Party  string   `json:"party"`
	Client string   `json:"client,omitempty"`
	Key    string   `json:"key,omitempty"`
	Args   []string `json:"args,omitempty"`
	Reply  string   `json:"reply,omitempty"`
	Change string   `json:"change,omitempty"` // what happened to Key: created, deleted, overwritten, expired, lost
	Detail string   `json:"detail,omitempty"`
	DurNs  int64    `json:"dur_ns,omitempty"`
	// Fault is the 1-based index in the scenario's schedule of the fault
	// that caused the event (its injection, its end, or what it set in
	// motion: the failover after a master's crash); 0 for none known.
	Fault int `json:"fault,omitempty"`
}

// Event kinds written by the sim.
const (
	EvCommand  = "cmd"     // a node executed a command
	EvExpire   = "expire"  // a key expired on a node (ground truth)
	EvDrop     = "drop"    // a message was lost
	EvPause    = "pause"   // a process stopped (GC pause)
	EvResume   = "resume"  // a paused process resumed
	EvService  = "service" // a service (database, storage) handled a request
	EvTimeout  = "timeout" // a client command timed out
	EvThread   = "thread"  // a thread started
	EvFault    = "fault"   // a fault was applied
	EvNote     = "note"    // a protocol-level note
	EvCrash    = "crash"   // a process crashed
	EvWorkload = "workload"

	// Deployment and fault events (topologies beyond single).
	EvReplicate  = "replicate"   // a replica applied a write shipped from its master
	EvPromote    = "promote"     // a replica became master; keys it lacked carry Change=lost
	EvDemote     = "demote"      // an old master rejoined as a replica; its own writes carry Change=lost
	EvMasterDown = "master-down" // the failover controller declared the master down
	EvDiscover   = "discover"    // a client learned the new master
	EvClockJump  = "clock-jump"  // a node's or process's clock jumped by DurNs (signed)
	EvNodeCrash  = "node-crash"  // a Redis node stopped
	EvNodeStart  = "node-start"  // a Redis node restarted; keys it lost carry Change=lost
	EvPartition  = "partition"   // messages Party -> Detail are dropped for DurNs
	EvHeal       = "heal"        // a partition ended
	EvRetry      = "retry"       // a client retried a command after a timeout
	EvPublish    = "publish"     // a node published a message on channel Key
	EvDeliver    = "deliver"     // a pub/sub message reached a subscriber
	EvRestart    = "restart"     // a crashed process restarted as a new instance
	EvLate       = "late"        // a request ran at Party after Client had given up on it (timed out)
)

// Key changes recorded on node events.
const (
	KeyCreated = "created"
	KeyDeleted = "deleted"
	KeyExpired = "expired"
	KeyLost    = "lost" // gone without a command or expiry: promotion, restart, demotion
	// A promoted replica still holds a key its old master had deleted or
	// let expire (the change had not replicated): the key is back.
	KeyRevived = "revived"
	// A command changed an existing key's value (GETSET, SET without NX,
	// HSET or HINCRBY in a script); a TTL change alone is no overwrite.
	KeyOverwritten = "overwritten"
)

// Op is one invoke/return pair in a client history. Return is -1 while
// the operation has not returned (crash, lost reply, end of run).
type Op struct {
	ID      int    `json:"id"`
	Client  string `json:"client"`
	Process string `json:"process"`
	Kind    string `json:"kind"`
	Key     string `json:"key"`
	Value   string `json:"value,omitempty"`
	Result  string `json:"result,omitempty"`
	Call    int64  `json:"call"`
	Return  int64  `json:"return"`
}

// Open reports whether the operation never returned.
func (o Op) Open() bool { return o.Return < 0 }

// Stats summarises a run.
type Stats struct {
	SimNs         int64 `json:"sim_ns"`
	Events        int   `json:"events"`
	RedisCommands int   `json:"redis_commands"`
	// Budget, when set, says which budget stopped the run early.
	Budget string `json:"budget,omitempty"`
}

// HorizonBudget starts the Budget of a run whose clients were still
// working when simulated time reached its horizon.
const HorizonBudget = "simulated time: clients still working"

// AtHorizon reports whether the horizon stopped the run: its clients
// were still waiting or working after all that time.
func (s Stats) AtHorizon() bool { return strings.HasPrefix(s.Budget, HorizonBudget) }

// Trace is the full output of a run: events in the order they happened
// and the client histories in invocation order.
type Trace struct {
	Events  []Event           `json:"events"`
	Ops     []Op              `json:"ops"`
	Scripts map[string]string `json:"scripts,omitempty"`
	Stats   Stats             `json:"stats"`
}

// Ms converts a virtual time in ns to milliseconds.
func Ms(ns int64) float64 { return float64(ns) / float64(time.Millisecond) }

// LargeRun is the number of events from which a finished run's memory is
// collected and given back to the system before the next stage (the sim
// before unpacking its events, traces before the check): 160 MB of Event.
const LargeRun = 1 << 20

// LongRun is the number of events from which a run's bookkeeping uses a
// second core: the sim packs its events on another goroutine, and a
// trace is hashed beside its check and in two stages. Below it, a run is
// too short to repay a goroutine (explore's runs are a few hundred).
const LongRun = 1 << 16
