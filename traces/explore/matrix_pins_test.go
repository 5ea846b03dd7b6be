package explore

import "github.com/locksim/locksim/protocols"

// pinsOf is the pinned matrix of a workload: unique-name's is argued in
// matrix_test.go, stock's and lock-set's below.
func pinsOf(workload string) []expectedCell {
	switch workload {
	case "unique-name":
		return expectedMatrix
	case "stock", "lock-set":
		return shortHoldPins
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
		if p.Name == "local-mutex" {
			none = CellUnsafe
		}
		out = append(out, expectedCell{p.Name, "none", none}, expectedCell{p.Name, "gc-pause", CellUnsafe})
	}
	return out
}()
