// Package locktest checks a Redis lock with property-based tests: "for
// all scenarios with these faults, my lock never lets two holders in"
// (or never damages the data it protects), in a team's own CI.
//
// A scenario is drawn with rapid (pgregory.net/rapid): clients, threads,
// operations, lease and wait settings, topology, and the fault schedule
// as explicit timed trace.Fault events of the chosen kinds, aimed at the
// scenario's real parties (clients c1..cN; the nodes of the topology:
// "redis", replicas "redis-r1".., independent masters "redis-1"..; the
// sim.Master alias; the sentinel). The scenario runs in locksim's
// deterministic simulator and the checker judges its trace. On a failure
// rapid shrinks the scenario to a smallest one that fails the same way
// (same property, same cause), and the test fails once, with the
// explanation, the trace written under testdata/locksim and the one
// command that replays it:
//
//	func TestMyLock(t *testing.T) {
//		locktest.Check(t, locktest.Config{
//			Protocol:   "setnx-lua-del", // or Lock: &myProtocol
//			Faults:     []string{"gc-pause", "failover"},
//			Topologies: []string{"replicated"},
//		})
//	}
//
// The generator draws the choices that decide safety first and the
// noise seed (network jitter, think times, tokens) last, so shrinking
// reaches few clients, few faults and simple settings before it touches
// the noise. Fault durations and amounts are drawn in eighths of the
// lease, since a fault much shorter than the lease rarely breaks it; a
// failover event carries the slow replication that precedes the crash
// (as protocols.GenerateFaults draws it) and lasts a number of
// sentinel down-after periods (on the single topology there is no
// replica to promote: the master comes back empty, as after a restart
// without persistence).
//
// A lock of one's own is written against the sim's thread API
// (sim.Thread: Call, Sleep, Now, Rand) as a protocols.Lock, described by
// a protocols.Protocol, and either registered with protocols.Register or
// passed as Config.Lock.
//
// A protected resource of one's own is a Resource: a model.Spec of its
// operations, the service that implements it and the operations a client
// performs on it while it holds the lock (Section); the checker checks
// the recorded operations against the Spec, and fenced writes as a fenced
// register (FenceHeld).
//
// Expect is Check for a lock that must be found unsafe: it returns the
// smallest failing case as a *Failure (property and cause in the
// checker's taxonomy, clients, seed, trace path, replay command;
// WriteHTML draws its timeline) and fails the test when none is found.
// The trace under testdata/locksim is the one saved failure to commit.
//
// Scenarios and Property (PropertyT for a GoRedis lock) serve users who
// compose their own rapid.Check;
// Fuzz and Decode turn the same scenarios into a native Go fuzz target;
// Evaluate runs and judges one scenario; Replay re-runs a trace file and
// verifies it is reproduced byte for byte.
package locktest
