package trace

import (
	"strconv"
	"strings"
	"time"
)

// Constructors for every event the sim writes. The sim and the tests that
// build traces by hand use these, so that a reader and a writer cannot
// disagree on which field holds what. Parties are processes ("c1", or
// "c1#2" after a restart), nodes ("redis", "redis-r1"), services ("db"),
// the sentinel, or links between them ("c1<->redis", "c1->db").

// WithFault returns e caused by the scheduled fault id (1-based; 0 none).
func (e Event) WithFault(id int) Event {
	e.Fault = id
	return e
}

// Command is a command a node ran for client. Key is the key whose
// Change it reports (or the command's first key); change is one of the
// Key* changes or "".
func Command(node, client, key string, args []string, reply, change string) Event {
	return Event{Kind: EvCommand, Party: node, Client: client, Key: key, Args: args, Reply: reply, Change: change}
}

// Expire is a key expiring on node (ground truth).
func Expire(node, key string) Event {
	return Event{Kind: EvExpire, Party: node, Key: key, Change: KeyExpired}
}

// Lost is a key that vanished from node without a command or an expiry:
// kind is EvPromote, EvDemote, EvNodeStart or EvReplicate.
func Lost(kind, node, key, detail string) Event {
	return Event{Kind: kind, Party: node, Key: key, Change: KeyLost, Detail: detail}
}

// Revived is a key a promoted replica, node, still held although the
// master it replaces no longer did (or held a newer version of it); value
// is what the replica holds (a string's value, a hash's fields and
// values), which names its owner.
func Revived(node, key string, value []string, detail string) Event {
	return Event{Kind: EvPromote, Party: node, Key: key, Args: value, Change: KeyRevived, Detail: detail}
}

// Replicated is a replica applying a write shipped from its master.
func Replicated(replica, key, change, detail string) Event {
	return Event{Kind: EvReplicate, Party: replica, Key: key, Change: change, Detail: detail}
}

// Service is a request a service (database, storage) handled for client.
func Service(service, client, key string, args []string, reply string) Event {
	return Event{Kind: EvService, Party: service, Client: client, Key: key, Args: args, Reply: reply}
}

// Drop is a message from party that was lost; detail names where to.
func Drop(from, detail string) Event { return Event{Kind: EvDrop, Party: from, Detail: detail} }

// LateReply is a reply that reached client after it gave up on the
// command: dropped.
func LateReply(process, client, detail string) Event {
	return Event{Kind: EvDrop, Party: process, Client: client, Detail: detail}
}

// Late is a request of client's that party ran after the client had
// given up on it (the attempt timed out): it follows the request's own
// event.
func Late(party, client, detail string) Event {
	return Event{Kind: EvLate, Party: party, Client: client, Detail: detail}
}

// Timeout is a client's command that timed out.
func Timeout(process, client, detail string) Event {
	return Event{Kind: EvTimeout, Party: process, Client: client, Detail: detail}
}

// Retry is a client's command sent again after a timeout.
func Retry(process, client, detail string) Event {
	return Event{Kind: EvRetry, Party: process, Client: client, Detail: detail}
}

// Pause is a process stopped for d (why: the fault kind, or a reason).
func Pause(process, why string, d time.Duration) Event {
	return Event{Kind: EvPause, Party: process, Detail: why, DurNs: int64(d)}
}

// Resume is a paused process running again.
func Resume(process string) Event { return Event{Kind: EvResume, Party: process} }

// Crash is a process crashing.
func Crash(process string) Event { return Event{Kind: EvCrash, Party: process} }

// Restart is a crashed process restarting as instance, a new process.
func Restart(instance, of string) Event {
	return Event{Kind: EvRestart, Party: instance, Detail: "new instance of " + of}
}

// Thread is a thread of process starting.
func Thread(process, client string) Event {
	return Event{Kind: EvThread, Party: process, Client: client}
}

// Note is a protocol-level note by a client.
func Note(process, client, key, detail string) Event {
	return Event{Kind: EvNote, Party: process, Client: client, Key: key, Detail: detail}
}

// FaultApplied is an injected fault of kind hitting party for d.
func FaultApplied(party, kind, detail string, d time.Duration) Event {
	return Event{Kind: EvFault, Party: party, Detail: kind + ": " + detail, DurNs: int64(d)}
}

// FaultNote is a fault event whose text is not "kind: detail" (a clock
// drift, the end of a stall).
func FaultNote(party, detail string) Event { return Event{Kind: EvFault, Party: party, Detail: detail} }

// Partition is a fault on link ("a<->b" both ways, "a->b" one way, or a
// lone party cut off from everyone): kind FaultPartition drops its
// messages, FaultDelay holds them back, for d.
func Partition(link, kind string, d time.Duration) Event {
	return Event{Kind: EvPartition, Party: link, Detail: kind, DurNs: int64(d)}
}

// Heal is the end of a Partition of kind on link.
func Heal(link, kind string) Event { return Event{Kind: EvHeal, Party: link, Detail: kind} }

// ClockJump is party's clock jumping by d (signed).
func ClockJump(party string, d time.Duration) Event {
	return Event{Kind: EvClockJump, Party: party, DurNs: int64(d)}
}

// ClockDrift is party's clock running ppm fast (negative: slow) from now
// on, in place of any earlier rate.
func ClockDrift(party string, ppm int64) Event {
	return FaultNote(party, driftPrefix+strconv.FormatInt(ppm, 10)+driftSuffix)
}

const driftPrefix, driftSuffix = "clock drift ", " ppm"

// DriftPPM reads the rate of a ClockDrift event; false for other events.
func (e Event) DriftPPM() (int64, bool) {
	rest, ok := strings.CutPrefix(e.Detail, driftPrefix)
	if e.Kind != EvFault || !ok {
		return 0, false
	}
	rest, ok = strings.CutSuffix(rest, driftSuffix)
	if !ok {
		return 0, false
	}
	ppm, err := strconv.ParseInt(rest, 10, 64)
	return ppm, err == nil
}

// NodeCrash is a Redis node stopping for d.
func NodeCrash(node string, d time.Duration) Event {
	return Event{Kind: EvNodeCrash, Party: node, DurNs: int64(d)}
}

// NodeStart is a Redis node restarting.
func NodeStart(node, detail string) Event {
	return Event{Kind: EvNodeStart, Party: node, Detail: detail}
}

// Promote is a replica, node, becoming master in place of old; offsets
// says how much of old's stream it had applied.
func Promote(node, old, offsets string) Event {
	return Event{Kind: EvPromote, Party: node, Detail: promotedPrefix + old + " (" + offsets + ")"}
}

const promotedPrefix = "promoted to master, replacing "

// Replaced reads the master a Promote event replaced ("" for other events).
func (e Event) Replaced() string {
	rest, ok := strings.CutPrefix(e.Detail, promotedPrefix)
	if e.Kind != EvPromote || e.Key != "" || !ok {
		return ""
	}
	old, _, _ := strings.Cut(rest, " (")
	return old
}

// Demote is an old master rejoining as a replica.
func Demote(node, detail string) Event { return Event{Kind: EvDemote, Party: node, Detail: detail} }

// MasterDown is the failover controller declaring the master down.
func MasterDown(controller, detail string) Event {
	return Event{Kind: EvMasterDown, Party: controller, Detail: detail}
}

// Discover is a process learning the new master.
func Discover(process, detail string) Event {
	return Event{Kind: EvDiscover, Party: process, Detail: detail}
}

// Publish is a node publishing msg on channel.
func Publish(node, channel, detail string) Event {
	return Event{Kind: EvPublish, Party: node, Key: channel, Detail: detail}
}

// Deliver is a pub/sub message reaching a subscriber's process.
func Deliver(process, channel, msg string) Event {
	return Event{Kind: EvDeliver, Party: process, Key: channel, Detail: msg}
}

// Workload is the workload setting up its data on a party.
func Workload(party, key, detail string) Event {
	return Event{Kind: EvWorkload, Party: party, Key: key, Detail: detail}
}

// Link reads the link of a Partition or Heal event: its two ends and
// whether it cuts both ways. A lone party (cut off from everyone) has
// b == "".
func (e Event) Link() (a, b string, both bool) {
	if x, y, ok := strings.Cut(e.Party, "<->"); ok {
		return x, y, true
	}
	if x, y, ok := strings.Cut(e.Party, "->"); ok {
		return x, y, false
	}
	return e.Party, "", true
}

// Cuts reports whether a Partition event stops messages from one of
// from to one of to (a lone party is cut from everyone). Only partitions
// drop messages; a delay fault holds them back.
func (e Event) Cuts(from, to string) bool {
	if e.Kind != EvPartition || e.Detail != FaultPartition {
		return false
	}
	a, b, both := e.Link()
	switch {
	case b == "":
		return a == from || a == to
	case a == from && b == to:
		return true
	}
	return both && a == to && b == from
}

// FaultKind reads the kind of an EvFault event ("kind: detail"), or of a
// Partition or Heal event; "" otherwise.
func (e Event) FaultKind() string {
	switch e.Kind {
	case EvPartition, EvHeal:
		return e.Detail
	case EvFault:
		k, _, _ := strings.Cut(e.Detail, ":")
		return k
	case EvPause:
		return e.Detail
	}
	return ""
}
