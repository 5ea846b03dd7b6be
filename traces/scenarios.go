package traces

import (
	"fmt"
	"sort"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// Reference is a named reference timeline of DESIGN.md as an explicit
// scenario.
type Reference struct {
	Name     string
	Summary  string
	Scenario protocols.Scenario
}

var references = map[string]Reference{}

func addReference(r Reference) { references[r.Name] = r }

func init() {
	gc := func(target string, at, dur int64) trace.Fault {
		return trace.Fault{Kind: trace.FaultGCPause, Target: target, AtMs: at, DurMs: dur}
	}
	cut := func(a, b string) trace.Fault {
		return trace.Fault{Kind: trace.FaultPartition, Target: a + "<->" + b, AtMs: 0, DurMs: 3_600_000}
	}
	// Every timeline below runs unique-name (5 s critical sections, a user
	// who retries a refused lock every 500 ms) unless it says otherwise,
	// with clients started 500 ms apart so that c1 takes the lock first.
	uniq := func(protocol string, clients int, faults ...trace.Fault) protocols.Scenario {
		return protocols.Scenario{Seed: 1, Protocol: protocol, Workload: "unique-name", Clients: clients, Ops: 1,
			StaggerMs: 500, Faults: faults}
	}

	// stock: seed 001's purchase with a 5 s critical section; a user whose
	// purchase was refused tries again every 500 ms.
	stock := func(protocol string, clients int, faults ...trace.Fault) protocols.Scenario {
		sc := uniq(protocol, clients, faults...)
		sc.Workload, sc.WorkMs = "stock", 5000
		return sc
	}

	// c1 takes the 60 s setnx-del lock, then stops the world for 70 s in
	// its critical section; the key expires, c2 takes the lock and
	// inserts; c1 resumes and inserts too.
	addReference(Reference{Name: "pause-no-fencing",
		Summary:  "a GC pause outlasts the lease; a second client acquires and both write",
		Scenario: uniq("setnx-del", 2, gc("c1", 1000, 70_000))})
	// The same pause with a fencing token: the database refuses c1's
	// insert, whose token is older than c2's.
	addReference(Reference{Name: "pause-fenced",
		Summary:  "the same pause with fencing tokens: the storage rejects the paused client's stale write",
		Scenario: uniq("fenced", 2, gc("c1", 1000, 70_000))})
	// c1's INSERT leaves at t=5.2 s and sits 20 s in the network; its 10 s
	// lease ends at 10.2 s, c2 takes the lock and inserts first.
	delayed := uniq("setnx-lua-del", 2,
		trace.Fault{Kind: trace.FaultDelay, Target: "c1->" + protocols.DBService, AtMs: 4000, DurMs: 2000, Value: 20_000})
	delayed.TimeoutMs = 30_000 // the database driver waits for its write
	addReference(Reference{Name: "delayed-write",
		Summary:  "a write sits in the network past its lease; another client acquires and writes first",
		Scenario: delayed})
	// Replication slows to 5 s; c1 locks on the master at 0.2 s; the master
	// dies at 1 s; the sentinel promotes a replica that never got the key;
	// c2 learns the new master and locks.
	failover := uniq("setnx-lua-del", 2,
		trace.Fault{Kind: trace.FaultReplicationLag, Target: sim.Master, AtMs: 0, DurMs: 30_000, Value: 5000},
		trace.Fault{Kind: trace.FaultFailover, Target: sim.Master, AtMs: 1000, DurMs: 20_000})
	failover.Topology, failover.DownAfterMs, failover.DiscoveryMs = protocols.TopoReplicated, 1000, 200
	addReference(Reference{Name: "failover-before-replication",
		Summary:  "the master dies before the lock key reaches the replica; the promoted replica grants it again",
		Scenario: failover})
	// Redlock on five masters: c1 reaches A, B, C; c2 reaches C, D, E. C's
	// clock jumps 10 s at t=2 s and c1's key there expires; c2 gets C, D, E.
	split := []trace.Fault{cut("c1", "redis-4"), cut("c1", "redis-5"), cut("c2", "redis-1"), cut("c2", "redis-2")}
	addReference(Reference{Name: "redlock-clock-jump",
		Summary: "Redlock: a clock jump on one of the majority's masters expires the key; a second majority forms",
		Scenario: uniq("redlock", 2, append(split[:4:4],
			trace.Fault{Kind: trace.FaultClockJump, Target: "redis-3", AtMs: 2000, Value: 10_000})...)})
	// As above, but C restarts empty (no persistence) instead.
	addReference(Reference{Name: "redlock-restart",
		Summary: "Redlock: one of the majority's masters restarts without persistence; a second majority forms",
		Scenario: uniq("redlock", 2, append(split[:4:4],
			trace.Fault{Kind: trace.FaultNodeRestart, Target: "redis-3", AtMs: 2000, DurMs: 500})...)})
	// c1 sends its SETs; a 10 s pause holds the OK replies past the 8 s
	// validity; c2 locks meanwhile. Without the validity check c1 believes
	// it holds the lock when it resumes; with it, c1 gives up and retries.
	addReference(Reference{Name: "pause-during-acquire",
		Summary:  "Redlock without the validity check: OK replies read after a pause longer than the lease",
		Scenario: uniq("redlock-unchecked", 2, gc("c1", 189, 10_000))})
	addReference(Reference{Name: "pause-during-acquire-checked",
		Summary:  "the same pause with redsync's validity check: the late client gives the lock up",
		Scenario: uniq("redlock", 2, gc("c1", 189, 10_000))})
	// stock, setnx-del: c1 pauses 61 s holding the lock; c2 takes it at
	// ~60.3 s; c1 resumes at 62 s, writes the stock and its unconditional
	// DEL removes c2's key; c3 takes the lock while c2 is still inside.
	addReference(Reference{Name: "foreign-release",
		Summary:  "a plain DEL after expiry deletes another client's lock; a third client acquires",
		Scenario: stock("setnx-del", 3, gc("c1", 1000, 61_000))})
	// stock, setnx-get-del: c1's GET (token matches) leaves at 5.1905 s;
	// a 7 s pause holds its reply; the lease ends at 10.2 s and c2 locks;
	// c1 resumes and its DEL removes c2's key; c3 locks while c2 is inside.
	addReference(Reference{Name: "non-atomic-release",
		Summary:  "GET-compare then DEL: the key expires and is re-acquired between the two; the DEL removes it",
		Scenario: stock("setnx-get-del", 3, gc("c1", 5191, 7000))})
	// setnx-daemon-renew: c1's daemon thread stalls for 40 s while its
	// critical section runs 40 s long; the 30 s key expires and c3 takes
	// it. The daemon has no owner check: had c3 still held the key when it
	// woke, it would have extended c3's lock (see the protocol's tests).
	addReference(Reference{Name: "renew-without-owner-check",
		Summary: "seed 002's renewal daemon stalls: the lease lapses while the holder works and a second client acquires",
		Scenario: uniq("setnx-daemon-renew", 3,
			trace.Fault{Kind: trace.FaultWatchdogStall, Target: "c1", AtMs: 1000, DurMs: 40_000},
			trace.Fault{Kind: trace.FaultSlowWork, Target: "c1", AtMs: 0, DurMs: 10_000, Value: 40_000})})
	// Redisson lock(): the watchdog stalls 45 s while the critical section
	// runs 40 s long; the 30 s lease lapses and c2, waiting on pub/sub and
	// the TTL, takes the lock.
	addReference(Reference{Name: "watchdog-starvation",
		Summary: "Redisson's watchdog stalls longer than the lease while the holder works; a second client acquires",
		Scenario: uniq("redisson", 2,
			trace.Fault{Kind: trace.FaultWatchdogStall, Target: "c1", AtMs: 1000, DurMs: 45_000},
			trace.Fault{Kind: trace.FaultSlowWork, Target: "c1", AtMs: 0, DurMs: 10_000, Value: 40_000})})
	// redsync with WithSetNXOnExtend on one master: c1's keep-alive
	// goroutine stalls from 1 s to 14 s while its critical section runs
	// 20 s; the 8 s key expires, c2 takes the lock, works and releases;
	// then c1's late Extend finds no key and takes it back with SET NX,
	// reporting success: c1 never learns it lost the lock.
	late := uniq("redlock-setnx-extend", 2,
		trace.Fault{Kind: trace.FaultWatchdogStall, Target: "c1", AtMs: 1000, DurMs: 13_000},
		trace.Fault{Kind: trace.FaultSlowWork, Target: "c1", AtMs: 0, DurMs: 1000, Value: 15_000})
	late.Topology = protocols.TopoSingle
	addReference(Reference{Name: "late-refresh-reacquire",
		Summary:  "an extend that uses SET NX silently takes back an expired lock after another client held it",
		Scenario: late})
	// stock, Redisson 3.16 lock(): c1's unlock script deletes the key and
	// publishes, but its reply is cut on the way back; the client retries
	// the script 4.5 s later (3 s timeout, 1.5 s interval), after c2 has
	// taken the lock. The owner check in the script makes the retry
	// harmless: it answers nil and Redisson raises
	// IllegalMonitorStateException, which the history records.
	addReference(Reference{Name: "retried-unlock",
		Summary: "an unlock whose reply was lost is retried after another client acquired: the script's owner check keeps it harmless",
		Scenario: stock("redisson", 2,
			trace.Fault{Kind: trace.FaultPartition, Target: "redis->c1", AtMs: 5192, DurMs: 400})})
	// setnx-lua-del: c1's SET NX reaches Redis and creates the key, but the
	// reply is lost; c1 sees a timeout and believes it failed, while the
	// key blocks everyone until its 10 s TTL passes.
	addReference(Reference{Name: "orphan-acquire",
		Summary:  "an acquire whose reply was lost: the key is held by nobody who knows it until the TTL passes",
		Scenario: uniq("setnx-lua-del", 2, trace.Fault{Kind: trace.FaultReplyLoss, Target: "redis", AtMs: 0, DurMs: 300, Value: 1000})})
}

// DefaultReference is what `locksim run` runs with no protocol given.
const DefaultReference = "pause-no-fencing"

// LookupReference returns the reference scenario called name.
func LookupReference(name string) (Reference, error) {
	r, ok := references[name]
	if !ok {
		return Reference{}, fmt.Errorf("unknown scenario %q (try `locksim list`)", name)
	}
	return r, nil
}

// References lists the reference scenarios by name.
func References() []Reference {
	out := make([]Reference, 0, len(references))
	for _, r := range references {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
