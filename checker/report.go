// Package checker turns a trace into porcupine histories, checks them
// against the models, and classifies and explains every violation.
package checker

// Verdicts.
const (
	VerdictOK        = "ok"
	VerdictViolation = "violation"
	VerdictUnknown   = "unknown" // the checker timed out: partial results only
)

// Properties.
const (
	PropMutex    = "mutual-exclusion"
	PropResource = "resource"
)

// Causes: why two clients held the lock at once (or why data was damaged).
const (
	// The first holder's key expired while it still believed it held the
	// lock; Reason says why (holder paused, work longer than the lease,
	// renewal stalled).
	CausePrematureExpiry = "premature-expiry"
	// Another client deleted the first holder's key (plain DEL after its
	// own lease had expired, or a non-atomic compare-then-delete).
	CauseForeignRelease = "foreign-release"
	// The key was never removed where the first holder wrote it, yet the
	// second client acquired: the lock lives only inside each process.
	CauseLocalLockOnly = "local-lock-only"
	// No cause found in the trace; the explanation lists what is known.
	CauseUnexplained = "unexplained"
)

// Reasons for premature expiry.
const (
	ReasonPaused     = "holder paused"
	ReasonSlowWork   = "work longer than the lease"
	ReasonNoProgress = "lease ran out while the holder was still working"
)

// Report is the checker's verdict on one trace.
type Report struct {
	Verdict    string      `json:"verdict"`
	Violations []Violation `json:"violations"`
	Damage     Damage      `json:"damage"`
	Checked    []Checked   `json:"checked"`
}

// Checked says what one porcupine check covered and found.
type Checked struct {
	Property   string `json:"property"`
	Model      string `json:"model"`
	Operations int    `json:"operations"`
	Result     string `json:"result"`
}

// Violation is one broken property, explained.
type Violation struct {
	Property    string   `json:"property"`
	Cause       string   `json:"cause"`
	Reason      string   `json:"reason,omitempty"`
	Key         string   `json:"key"`
	Clients     []string `json:"clients"`
	AtMs        float64  `json:"at_ms"`
	UntilMs     float64  `json:"until_ms,omitempty"`
	Explanation string   `json:"explanation"`
	Events      []int    `json:"events,omitempty"` // indexes into the trace's events
}

// Damage counts what the violations did to the protected data.
type Damage struct {
	DuplicateInserts int `json:"duplicate_inserts"`
	LostUpdates      int `json:"lost_updates"`
	OversoldUnits    int `json:"oversold_units"`
}

// Total is the sum of all damage counts.
func (d Damage) Total() int { return d.DuplicateInserts + d.LostUpdates + d.OversoldUnits }
