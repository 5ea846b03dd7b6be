package model

// The history vocabulary: operation kinds and results that protocols write
// into the trace and the checker reads back.
const (
	OpAcquire = "acquire"
	OpRelease = "release"
	OpRenew   = "renew"
	OpInsert  = "insert" // unique-name: re-check and insert under the lock
	OpBuy     = "buy"    // stock: read and decrement under the lock
	OpAdd     = "add"    // lock-set: read the set, add Value, write it back under the lock
	OpRead    = "read"   // lock-set: final read; Result is the sorted, comma-separated set
	OpWrite   = "write"  // fenced storage write; Value is the fencing token

	ResOK       = "ok"
	ResFail     = "fail"      // acquire refused: someone else holds it
	ResNotOwner = "not-owner" // release or renewal found the lock not ours
	ResError    = "error"     // transport error or timeout: outcome unknown
	ResInserted = "inserted"
	ResExists   = "exists"
	ResRejected = "rejected" // a fenced storage refused a stale token
)

// Ops lists the operation kinds of the vocabulary (a fault's anchor
// names one).
func Ops() []string {
	return []string{OpAcquire, OpRelease, OpRenew, OpInsert, OpBuy, OpAdd, OpRead, OpWrite}
}

// Results lists the results of the vocabulary.
func Results() []string {
	return []string{ResOK, ResFail, ResNotOwner, ResError, ResInserted, ResExists, ResRejected}
}
