// Package checker turns a trace into porcupine histories, checks them
// against the models, and classifies and explains every violation.
package checker

import (
	"math"
	"slices"
	"sort"

	"github.com/locksim/locksim/sim/trace"
)

// Verdicts.
const (
	VerdictOK        = "ok"
	VerdictViolation = "violation"
	VerdictUnknown   = "unknown" // a check exceeded its step budget and nothing else was found: partial results only
)

// Properties, each with its own causes. A run reports every property it
// broke, each violation once, under its own property.
const (
	// A client renewed or released a lease it did not hold (a foreign
	// renewal or release), whether or not an overlap followed.
	PropOwnership = "ownership"
	// Two clients believed they held one lock at once.
	PropMutex = "mutual-exclusion"
	// The protected data is not what serial use would leave, judged per
	// write against the data's own history.
	PropDamage = "damage"
	// After the last fault healed, a lock stopped making progress.
	PropLiveness = "liveness"
)

// Causes: why two clients held the lock at once (or why data was damaged).
// Each violation carries exactly one; Causes lists them in priority order.
const (
	// The key vanished from a Redis master that was replaced: a promoted
	// replica lacked it (EvPromote, Change=lost) or a demoted old master
	// dropped it (EvDemote, Change=lost) before its lease ran out.
	CauseLostAfterFailover = "lost-after-failover"
	// The key expired early because the node's clock jumped forward
	// (EvClockJump on the node, then the expiry at the same instant); or
	// (Reason ReasonClientClock) a client whose clock had jumped forward
	// read the holder's lock as expired and overwrote it (GETSET).
	CauseClockJump = "clock-jump"
	// The key expired early because the node's clock ran fast (a
	// clock-drift fault on the node while it counted the key's TTL down)
	// and its holder's work would have ended within the lease in true
	// time.
	CauseClockDrift = "clock-drift"
	// The node restarted without the key (EvNodeStart, Change=lost).
	CauseRestart = "restart-without-persistence"
	// A client's command ran twice because it retried after a timeout
	// (EvRetry): the second run deleted the next holder's key.
	CauseRetriedCommand = "retried-command"
	// Another client deleted or overwrote the holder's key (plain DEL
	// after its own lease had expired, a non-atomic compare-then-delete, a
	// GETSET or SET without NX over a key another client owns).
	CauseForeignRelease = "foreign-release"
	// A client extended (EXPIRE/PEXPIRE, or a renew that returned ok) a key
	// that another client's process created.
	CauseForeignRenewal = "foreign-renewal"
	// The lock service granted the key to a second client while the
	// first client's key could neither have expired nor been released:
	// two acquires granted while the first was held (one node holding two
	// grants of one key, as a recorded history shows it).
	CauseDoubleGrant = "double-grant"
	// The protected data accepted a write with a lower fencing token after
	// a higher one, and no overlap of the writers' holds, no loss of the
	// fence's state explains it: the tokens went backwards (the lock gave
	// a later holder a lower token) and the storage let the lower one in.
	CauseFenceRegression = "fence-regression"
	// The holder's key was created by an earlier acquire of the holder
	// whose reply it never got: the lease started before the holder
	// thought it did.
	CauseOrphanAcquire = "orphan-acquire"
	// The holder's acquire returned after its key had already expired on
	// the node(s) it counted on (no check of the remaining validity).
	CauseValidityNotChecked = "validity-not-checked"
	// The holder's key expired honestly while it still believed it held
	// the lock; Reason says why (holder paused, work longer than the
	// lease, renewal stalled).
	CausePrematureExpiry = "premature-expiry"
	// A write its client had given up on (timed out) landed later: after
	// the client's hold ended (a duplicate row), or inside its next hold,
	// deleting its own key (an earlier try's cleanup): a delayed message.
	CauseDelayedWrite = "delayed-write"
	// The holder never created a key in Redis: the lock lives only inside
	// each process.
	CauseLocalLockOnly = "local-lock-only"
	// No cause found in the trace; the explanation lists what is known.
	CauseUnexplained = "unexplained"

	// Liveness causes (Options.Liveness), judged after the last fault healed.
	// A client kept waiting for a lock that was free in Redis (an unlock
	// message it needed was lost).
	CauseLostWakeup = "lost-wakeup"
	// The owner's process kept renewing a key after it released the lock.
	CauseRenewalAfterRelease = "renewal-after-release"
	// A key outlived its owner's last hold by more than the bound, unrenewed.
	CauseOrphanKey = "orphan-key"
)

// causes lists every cause, most specific first: when several apply to
// one violation (multi-node locks), the first one listed wins.
var causes = []string{
	CauseLostAfterFailover, CauseClockJump, CauseClockDrift, CauseRestart, CauseRetriedCommand,
	CauseForeignRelease, CauseForeignRenewal, CauseDoubleGrant, CauseOrphanAcquire,
	CauseValidityNotChecked, CausePrematureExpiry, CauseDelayedWrite, CauseLocalLockOnly, CauseFenceRegression, CauseUnexplained,
	CauseLostWakeup, CauseRenewalAfterRelease, CauseOrphanKey,
}

// Causes returns every cause, most specific first.
func Causes() []string { return slices.Clone(causes) }

// defects are the causes a correct protocol would not have, whatever the
// faults: its own code broke the lock. The others are what the
// environment did to a lease (an expiry, a lost or restarted node).
var defects = map[string]bool{
	CauseForeignRenewal: true, CauseForeignRelease: true, CauseRetriedCommand: true, CauseDoubleGrant: true,
	CauseValidityNotChecked: true, CauseLocalLockOnly: true, CauseFenceRegression: true,
}

// rankByCausality orders violations so that the headline (the first) is
// the earliest protocol defect, and the violations it led to, or that
// the environment caused, follow as contributing causes in the order
// they were found.
func rankByCausality(vs []Violation) {
	sort.SliceStable(vs, func(i, j int) bool {
		di, dj := defects[vs[i].Cause], defects[vs[j].Cause]
		if di != dj {
			return di
		}
		return di && vs[i].AtMs < vs[j].AtMs
	})
}

// Reasons for premature expiry.
const (
	ReasonPaused         = "holder paused"
	ReasonSlowWork       = "work longer than the lease"
	ReasonRenewalStalled = "renewal stalled"
	ReasonNoProgress     = "lease ran out while the holder was still working"
	// Another client's EXPIRE-family command set the key's TTL (an
	// ownership violation, reported as such) and the key ran out on it.
	ReasonForeignTTL = "TTL set by another client"
	// The hold started no watchdog: it joined a renewal entry an earlier
	// renewal had left (Redisson #3712, #2515), and nothing renewed it.
	ReasonNoWatchdog = "hold had no watchdog"
	// Clock-jump takeover: the taker's own clock ran ahead.
	ReasonClientClock = "takeover by a client whose clock jumped"
)

// Report is the checker's verdict on one trace.
type Report struct {
	Verdict    string      `json:"verdict"`
	Violations []Violation `json:"violations"`
	Damage     Damage      `json:"damage"`
	Checked    []Checked   `json:"checked"`
	// Budget names the run budget that stopped the run early (set by the
	// runner, which then makes an ok verdict unknown).
	Budget string `json:"budget,omitempty"`
	// Precision is how the explanations print times; the simulator's
	// tenths when zero.
	Precision trace.Precision `json:"precision,omitempty"`
}

// Checked says what one porcupine check covered and found.
type Checked struct {
	Property   string `json:"property"`
	Model      string `json:"model"`
	Operations int    `json:"operations"`
	Result     string `json:"result"`
	Unknown    string `json:"unknown,omitempty"` // why the result is unknown: the budget it exceeded
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
	Nodes       []string `json:"nodes,omitempty"` // where the first holder's key vanished
	Explanation string   `json:"explanation"`
	Events      []int    `json:"events,omitempty"` // indexes into the trace's events
	// Faults are the scheduled faults the cited events trace back to.
	Faults []CitedFault `json:"faults,omitempty"`
	// Resource names the user's resource (model.Spec) whose check found
	// the violation (locktest); empty for the built-in checks.
	Resource string `json:"resource,omitempty"`
	// Model names the history check that found a resource violation
	// ("fenced-register", "unique-set", ...); not in the trace file.
	Model string `json:"-"`
}

// AtNs is the violation's time, AtMs, in ns.
func (v Violation) AtNs() int64 { return int64(math.Round(v.AtMs * 1e6)) }

// Damage counts what the violations did to the protected data, from
// ground truth.
type Damage struct {
	DuplicateInserts int `json:"duplicate_inserts"`
	LostUpdates      int `json:"lost_updates"`
	OversoldUnits    int `json:"oversold_units"`
	// Protected writes the resource accepted from a client whose lock had
	// already expired or been lost on Redis when the write arrived, after
	// the data had accepted a write of another client's later hold: judged
	// write by write against the data's history. Fencing refuses these.
	StaleWritesAccepted int `json:"stale_writes_accepted"`
	// Writes a fenced storage refused for a stale token: harm prevented,
	// not counted in Total.
	StaleWritesRejected int `json:"stale_writes_rejected"`
	// Acknowledged lock-set adds missing from the final read.
	LostElements int `json:"lost_elements"`
	// Writes that landed after their writer's lease was gone on Redis
	// when no client that got the lock later wrote to the data: no
	// newer holder's data was at stake; not in Total.
	HarmlessLateWrites int `json:"harmless_late_writes,omitempty"`
	// Late writes that reached the data while a later holder held the
	// lock but before it wrote: the data had seen no newer token, so a
	// fence accepts them too. Not in Total: the harm they do, if any, is
	// counted as what it did (a lost update when the later holder had
	// already read).
	LateWritesFirst int `json:"late_writes_first,omitempty"`
	// Fenced writes the data accepted with a lower token than one it had
	// already accepted, no overlap of holds explaining it (the cause
	// fence-regression): the fence's order broke.
	FenceRegressions int `json:"fence_regressions,omitempty"`
}

// Harm is the run's damage as a report prints it, and the late writes
// with no newer writer (HarmlessLateWrites).
func (r Report) Harm() (d Damage, harmless int) {
	d = r.Damage
	harmless, d.HarmlessLateWrites = d.HarmlessLateWrites, 0
	return d, harmless
}

// Add adds the counts of o to d.
func (d *Damage) Add(o Damage) {
	d.DuplicateInserts += o.DuplicateInserts
	d.LostUpdates += o.LostUpdates
	d.OversoldUnits += o.OversoldUnits
	d.StaleWritesAccepted += o.StaleWritesAccepted
	d.StaleWritesRejected += o.StaleWritesRejected
	d.LostElements += o.LostElements
	d.HarmlessLateWrites += o.HarmlessLateWrites
	d.LateWritesFirst += o.LateWritesFirst
	d.FenceRegressions += o.FenceRegressions
}

// StaleWriteGloss explains "stale write" where a report first prints it.
const StaleWriteGloss = "a stale write is one the protected data accepted from a client whose lock had already expired or been lost on Redis, after the data had accepted a write of another client's later hold"

// HarmlessLateGloss explains late writes that no newer holder's writes
// surround.
const HarmlessLateGloss = "each landed after its writer's lease had ended on Redis, and no client that got the lock later wrote to the data (not counted as damage)"

// LateFirstGloss explains late writes that reached the data before the
// next holder's first write.
const LateFirstGloss = "each landed after its writer's lease ran out on Redis, during another client's hold but before that client's first write: the data had seen no newer token, so fencing accepts it; any harm it did is counted above"

// DamageCount is one count of a Damage with its noun, singular and
// plural; Harm is false for the count that did no harm.
type DamageCount struct {
	N          int
	One, Other string
	Harm       bool
}

// Counts lists d's counts as reports print them, harm first.
func (d Damage) Counts() []DamageCount {
	return []DamageCount{
		{d.DuplicateInserts, "duplicate insert", "duplicate inserts", true},
		{d.LostUpdates, "lost update", "lost updates", true},
		{d.OversoldUnits, "oversold unit", "oversold units", true},
		{d.LostElements, "lost set element", "lost set elements", true},
		{d.StaleWritesAccepted, "stale write accepted", "stale writes accepted", true},
		{d.FenceRegressions, "write accepted below the fence's token", "writes accepted below the fence's token", true},
		{d.StaleWritesRejected, "stale write rejected by fencing", "stale writes rejected by fencing", false},
	}
}

// Total is the sum of the damage counts (rejected writes did no harm).
func (d Damage) Total() int {
	return d.DuplicateInserts + d.LostUpdates + d.OversoldUnits + d.StaleWritesAccepted + d.LostElements + d.FenceRegressions
}

// MergeReports is one report of the reports of a history's independent
// parts, parts no client and no key of which is in another: its
// violations are the parts' in the order Check ranks them (the defects
// first, by time; then the others, part by part), its damage their sum,
// and one Checked entry per property and model with the operations of
// all parts and the worst result.
func MergeReports(rs []Report) Report {
	var out Report
	out.Violations = []Violation{}
	at := map[[2]string]int{} // property, model -> index in out.Checked
	worse := map[string]int{VerdictOK: 0, VerdictUnknown: 1, VerdictViolation: 2}
	for _, r := range rs {
		out.Violations = append(out.Violations, r.Violations...)
		out.Damage.Add(r.Damage)
		if out.Budget == "" {
			out.Budget = r.Budget
		}
		out.Precision = max(out.Precision, r.Precision)
		for _, c := range r.Checked {
			i, ok := at[[2]string{c.Property, c.Model}]
			if !ok {
				at[[2]string{c.Property, c.Model}] = len(out.Checked)
				out.Checked = append(out.Checked, c)
				continue
			}
			m := &out.Checked[i]
			m.Operations += c.Operations
			if worse[c.Result] > worse[m.Result] {
				m.Result, m.Unknown = c.Result, c.Unknown
			}
		}
	}
	rankByCausality(out.Violations)
	violation, unknown := len(out.Violations) > 0, false
	for _, r := range rs {
		violation = violation || r.Verdict == VerdictViolation
		unknown = unknown || r.Verdict == VerdictUnknown
	}
	for _, c := range out.Checked {
		unknown = unknown || c.Result == VerdictUnknown
	}
	switch {
	case violation:
		out.Verdict = VerdictViolation
	case unknown:
		out.Verdict = VerdictUnknown
	default:
		out.Verdict = VerdictOK
	}
	return out
}
