package explore

import (
	"slices"

	"github.com/locksim/locksim/protocols"
)

// pinsOf is the pinned matrix of a workload: unique-name's is argued in
// matrix_test.go, stock's and lock-set's below.
func pinsOf(workload string) []expectedCell {
	switch workload {
	case "unique-name":
		return expectedMatrix
	case "stock":
		return shortHoldPins
	case "lock-set":
		return append(slices.Clone(shortHoldPins), lockSetPins...)
	}
	return nil
}

// shortHoldPins are stock's and lock-set's: seed 001's buy (GET the
// counter, SET it minus one) and Jepsen's lock-set add (GET the set, SET
// it with one more element) under the lock, with no work beyond the
// commands, so a hold lasts a few milliseconds.
//
// none: every lease is seconds long, so no key expires under a holder of
// a few milliseconds, and every release removes only the caller's own
// key. local-mutex excludes the threads of one process only: two
// processes read the same value and write it back, a lost update.
//
// gc-pause: an anchored pause starts right after a client's acquire and
// lasts from the lease (the hold has no work to spend it) to two leases;
// nothing the paused process runs can renew the key (watchdogs and
// daemons are its threads), so the key expires, the next client reads and
// writes, and the paused holder resumes and writes back what it read
// before: a lost update. Unsafe for every lease-based lock, Redlock's
// validity check included (it runs only while acquiring), and for fenced:
// its storage rejects an older token's write only after a newer one was
// written, and the GET carries no token, so the paused holder's write can
// land before the next holder's and both sales count one unit.
var shortHoldPins = func() []expectedCell {
	var out []expectedCell
	for _, p := range protocols.Protocols() {
		none := CellSafe
		if p.Name == "local-mutex" || p.Name == "setnx-daemon-renew" { // the swarm's holds near the lease: foreign-renewal at seed 4
			none = CellUnsafe
		}
		out = append(out, expectedCell{p.Name, "none", none}, expectedCell{p.Name, "gc-pause", CellUnsafe})
	}
	return out
}()

// lockSetPins are lock-set's further columns. Its schedule is ten short
// adds per client 20 ms apart, so holds follow one another closely and
// each lasts a few milliseconds (a GET and a SET), far below every lease
// (8 s to 60 s).
//
// watchdog-stall: the renewal threads stall. For a lock that renews in
// the background the swarm draws, three times in four, a hold of one to
// two leases, and a stall that outlasts what is left of the lease lets
// the key expire under its holder (redisson#5698): unsafe for those
// (every Redisson lock(), fenced, redlock-setnx-extend,
// setnx-px-lua-refresh, setnx-daemon-renew). The others have nothing to
// stall: safe but local-mutex.
//
// clock-drift: a node's clock runs 0.5 % to 20 % fast, so a key lives at
// least 1/1.2 of its lease (6.7 s of redlock's 8 s): still seconds
// longer than a hold. Safe for every lock but local-mutex.
//
// replication-lag (replicated; n/a on independent masters): replicas
// fall behind, but with no failover every command, lock and set alike,
// runs on the master, which has every write. Safe for every lock but
// local-mutex.
//
// slow-work: the generator adds to the hold the lease minus the
// workload's own work (none here) and more, so a slowed hold outlives
// the lease. Unsafe for the locks that do not renew: setnx-del,
// setnx-get-del, setnx-lua-del, setnx-watch-del, redislock-go,
// spring-registry, redisson-trylock (30 s lease, no watchdog), redlock
// and redlock-unchecked (redsync's validity is checked once, while
// acquiring) and the multilock (its 60 s lease, no watchdog). Safe for
// the renewing ones: Redisson's watchdog (every Redisson lock() and
// fenced), redlock-setnx-extend's keep-alive and setnx-px-lua-refresh's
// refresher run in threads the slow
// work does not slow, and re-arm the key every third (or half) of the
// lease. setnx-daemon-renew is unsafe another way: its daemon ends only
// when TTL finds no key, and with holds back to back the key is there at
// each 10 s check, so every earlier holder's daemon keeps running, and
// when a slowed hold lets the TTL fall below 15 s they re-EXPIRE the key
// of a lock they do not hold (foreign-renewal, seed 002's flaw).
var lockSetPins = func() []expectedCell {
	var out []expectedCell
	add := func(fault, verdict string, ps ...string) {
		for _, p := range ps {
			out = append(out, expectedCell{p, fault, verdict})
		}
	}
	multi := []string{"redlock", "redlock-unchecked", "redlock-setnx-extend", "redisson-multilock"}
	for _, p := range protocols.Protocols() {
		verdict := CellSafe
		if p.Name == "local-mutex" || p.Name == "setnx-daemon-renew" { // swarm holds near the lease: foreign-renewal at seed 4
			verdict = CellUnsafe
		}
		stall := verdict
		if p.Renews {
			stall = CellUnsafe
		}
		add("watchdog-stall", stall, p.Name)
		// clock-drift on the swarm generator: a hold drawn near the lease
		// plus a fast node clock outlives the key for the locks that do
		// not renew (seeds 7, 27, 72).
		drift := verdict
		if slices.Contains([]string{"redislock-go", "redisson-trylock", "redlock", "redlock-unchecked", "setnx-del", "setnx-get-del",
			"setnx-lua-del", "setnx-watch-del", "spring-registry"}, p.Name) {
			drift = CellUnsafe
		}
		add("clock-drift", drift, p.Name)
		if slices.Contains(multi, p.Name) {
			add("replication-lag", cellNA, p.Name)
		} else {
			add("replication-lag", verdict, p.Name)
		}
	}
	add("slow-work", CellUnsafe, "local-mutex", "setnx-del", "setnx-get-del", "setnx-lua-del", "setnx-watch-del", "redislock-go",
		"spring-registry", "redisson-trylock", "redlock", "redlock-unchecked", "redisson-multilock", "setnx-daemon-renew")
	add("slow-work", CellSafe, "redisson", "redisson-3.12.0", "redisson-3.16.1", "redisson-3.17.0", "redisson-latest", "redisson-pr7277", "fenced",
		"redlock-setnx-extend", "setnx-px-lua-refresh")
	return out
}()
