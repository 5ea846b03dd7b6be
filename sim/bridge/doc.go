// Package bridge runs ordinary Go code, go-redis clients included, as
// the processes of a sim.World: unmodified lock libraries (redsync,
// bsm/redislock, a hand-written SET NX lock) acquire and release against
// the sim's Redis nodes, through its network, under its faults, in its
// virtual time, and the run stays a pure function of its scenario.
//
// How: the world runs inside a testing/synctest bubble (Run), whose fake
// clock is the world's virtual time. A sim thread that calls Go code
// (Call) starts it on a goroutine and waits. Each bridged thread gets its
// own go-redis clients (Clients) whose Dialer returns an in-memory
// connection: what a client writes is parsed into RESP commands, and
// every reply, dial, close and call return is handed to the world only at
// a quiescence point (synctest.Wait), in a fixed order (by connection or
// thread, then sequence), so the goroutine scheduler never decides what
// the world sees first. Between its own events the world lets the bubble's
// clock run (sim.External): a goroutine's timer wakes it early; whatever
// woke at an instant settles before the world's events of that instant.
// Commands travel as messages of the sender's process through the sim's
// network (latency, partitions, loss), one in flight per connection as
// over TCP, and run on the node with Node.Serve, which records them in the
// trace under the thread's name, so the checker and `locksim view` read a
// bridged trace like any other.
//
// Topologies: Single (a redis.Client to the master), Sentinel (a
// redis.NewFailoverClient asking a simulated sentinel: SENTINEL
// get-master-addr-by-name answers with the master the world's failover
// controller knows, and +switch-master is published to subscribers when it
// promotes a replica), Pool (one redis.Client per independent master, for
// a redsync pool). Node i listens on 10.0.0.<i+1>:6379, the sentinel on
// 10.0.1.1:26379 (IP literals: a host name would send go-redis to the
// real resolver).
//
// Faults: network faults (partition, blackhole, delay, loss, reply loss), node crash
// and restart with persistence, failover, replication lag and node clock
// jumps and drift act on bridged traffic as on the built-in protocols'.
// A gc-pause holds everything of the process the world carries: its
// requests (sent at resume), its replies, its dials, the return of its
// calls and its sim threads (the workload around the lock). A
// client-crash cancels the context of the process's calls and resets its
// connections (the client reads EOF); the calls' results are dropped.
//
// What one bubble cannot express, and other limits:
//   - One clock: a process has no clock of its own, so per-process clock
//     jumps and drift cannot be simulated; callers refuse them
//     (locktest does, naming the fault).
//   - A gc-pause does not stop the library's own goroutines and timers
//     the way a stop-the-world pause does: a read deadline can expire
//     during the pause, where a real pause would deliver the reply and the
//     timeout together on resume. A watchdog-stall (background threads
//     only) cannot be told apart from the application's goroutines, and
//     is refused.
//   - A node that is cut off (partition, blackhole) never answers: dials
//     time out after DialTimeout and commands after go-redis's read
//     timeout. A node that is down refuses: its host answers a dial with
//     ECONNREFUSED, its crash sends every open connection a close (the
//     client reads EOF), and a command that reaches it on a connection of
//     an earlier server (down, or restarted since) draws a reset
//     ("connection reset by peer"); each travels the network like a
//     reply, as the built-in protocols' sim.ErrRefused does. go-redis's
//     pool cannot see a close before it reuses an idle connection (its
//     health check needs a socket), so it spends one retry on it where a
//     real client would dial at once.
//   - A connection's handshake is one message each way, lost like any
//     other (partition, loss, reply loss): the dial then waits for its
//     context or DialTimeout, where a kernel would resend the SYN after
//     a second.
//   - RESP2 only: nodes answer HELLO 2; the simulated sentinel refuses
//     HELLO 3 (go-redis falls back to RESP2). Pub/sub exists on the
//     sentinel only (the +switch-master channel); SUBSCRIBE on a node is
//     refused.
//   - go-redis waits for a free pooled connection with timers from a
//     process-wide sync.Pool, which a bubble may not share with another:
//     clients get a pool of 1000 connections, so go-redis's own wait
//     never happens, and a hook of the bridge enforces the user's
//     PoolSize (Topology.Options) with the bubble's own timers, failing
//     with redis.ErrPoolTimeout after PoolTimeout as go-redis does;
//     Options().PoolSize reads 1000. A client whose options leave
//     ReadBufferSize unset reads through a 4 KiB buffer (go-redis's
//     default is 32 KiB): no reply reads differently.
//   - Randomness outside the world: crypto/rand is seeded per run
//     (testing/cryptotest) and so is math/rand's global source (go-redis's
//     retry backoff, redsync's retry delay; Run sets GODEBUG
//     randseednop=0 for the test). math/rand/v2's global functions cannot
//     be seeded, and goroutines that draw from a shared source at the same
//     virtual instant draw in scheduler order: such a run is not
//     repeatable, which locktest detects by running scenarios twice and
//     reports.
//   - Run needs the test's *testing.T, cannot be used in parallel tests
//     (cryptotest, t.Setenv), and silences go-redis's logger for the test
//     binary.
//   - Code must return once its context is cancelled. A call still
//     running a virtual minute after the run ended (and cancelled its
//     context, and closed its connections) fails the run with a
//     *BlockedError: "client c2/t1 blocked in pkg.(*Lock).Lock
//     (lock.go:42) outside the simulated Redis", the first frame of its
//     goroutine outside the runtime, sync, time and context. A goroutine
//     left blocked a virtual hour after the run (a renewal loop that
//     ignores its context) makes Run return an error naming where it
//     waits, instead of synctest's deadlock panic; it stays blocked for
//     the rest of the test binary. Only what synctest counts as durably
//     blocked (channels and timers of the bubble, select, sync.WaitGroup,
//     sync.Cond) is seen this way: a goroutine in a real network call, on
//     a sync.Mutex, or on a channel made outside the bubble (a goroutine
//     the bubble does not own, sleeping in real time) stops the virtual
//     clock, and the run waits for it in real time.
//   - Known bug (issue 32): go-redis's own failover client can stop the
//     virtual clock for good. Its Sentinel pub/sub health check (every
//     3 s) waits for PubSub's sync.Mutex while a reconnect holds it
//     across a dial through the simulated network, which needs virtual
//     time to pass, which synctest does not allow during a mutex wait.
//     Run looks for such a stall every 5 s of real time and, at the
//     second look that finds the run unchanged, panics with one line
//     naming the waiting call ("the run's virtual clock is stuck:
//     go-redis/v9.(*PubSub).Ping (pubsub.go:352) waits for a
//     sync.Mutex ..."): the test binary ends there, in about 10 s, where
//     it would hang until go test's -timeout. Seen once in 104
//     scenarios: redislock over Sentinel, 4 clients x 3 ops, seed 0,
//     gc-pause, partition, reply-loss, node-restart and client-crash.
package bridge
