package model

// The history vocabulary: operation kinds and results that protocols write
// into the trace and the checker reads back.
const (
	OpAcquire = "acquire"
	OpRelease = "release"
	OpRenew   = "renew"
	OpInsert  = "insert" // unique-name: re-check and insert under the lock
	OpBuy     = "buy"    // stock: read and decrement under the lock

	ResOK       = "ok"
	ResFail     = "fail"      // acquire refused: someone else holds it
	ResNotOwner = "not-owner" // release or renewal found the lock not ours
	ResError    = "error"     // transport error or timeout: outcome unknown
	ResInserted = "inserted"
	ResExists   = "exists"
)
