package traces

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// Advice is one change to a violating scenario, tried: the same seed and
// faults re-run with the change, and what that run found. Only changes
// whose re-run no longer breaks the property they target are offered.
//
// Advice credits a mechanism only for what it demonstrably did in the
// re-run. A change made by running another lock of the catalog is
// offered under the change's name only when that lock differs from the
// original in the named change alone (or the change names the whole
// lock: the release that fixed a published bug), or when the re-run
// shows the named mechanism at work: fencing must have refused at least
// one stale write (the report's stale_writes_rejected), an owner-checked
// renewal must have refused to renew a key that was not its own, a Redis
// lock must have refused an acquire. A re-run clean for another reason
// (RFencedLock's watchdog renewing the lease, its WAIT for the replicas)
// is not offered.
type Advice struct {
	Change string `json:"change"` // what to change, in the user's words
	// Properties are what the change is meant to stop being broken, and
	// Causes the causes of the violations it removes.
	Properties []string `json:"properties"`
	Causes     []string `json:"causes"`
	Protocol   string   `json:"protocol"` // the protocol of the re-run
	Result     string   `json:"result"`   // what the re-run found
	// Scenario is the changed scenario that was re-run, and TraceSHA256
	// the hash of its trace.
	Scenario    protocols.Scenario `json:"-"`
	TraceSHA256 string             `json:"trace_sha256"`
	// Flags are the flags of locksim run that make the change on the
	// scenario as it ran: --protocol NAME, --lease-ms N.
	Flags []string `json:"-"`
}

// remedy is a change that removes some causes of violations.
type remedy struct {
	change string
	// short names the change in a result line: "with fencing: ...".
	short string
	// properties: what the re-run must no longer break.
	properties []string
	causes     []string
	// apply changes sc and returns the flags of locksim run that make the
	// change; false when the change does not apply to sc.
	apply func(sc protocols.Scenario) (protocols.Scenario, []string, bool)
	// shown, when set, says whether the re-run shows the change's
	// mechanism at work. A remedy that swaps in a lock differing from the
	// original in more than the change sets it: without it, the other
	// differences could be what cleaned the re-run.
	shown func(re *Outcome) bool
}

// withProtocol swaps the lock for another of the catalog, all else kept
// (the lease included: the scenario is normalized, so the change is the
// lock's code alone). The other lock may differ in more than the change
// the remedy names; such a remedy sets shown.
func withProtocol(name string, from ...string) func(protocols.Scenario) (protocols.Scenario, []string, bool) {
	return func(sc protocols.Scenario) (protocols.Scenario, []string, bool) {
		if len(from) > 0 && !slices.Contains(from, sc.Protocol) || sc.Protocol == name {
			return sc, nil, false
		}
		sc.Protocol, sc.ProtocolFile = name, nil // a catalog protocol instead of a described one
		return sc, []string{"--protocol", name}, true
	}
}

// leaseBeyondPauses makes the lease outlast the longest pause plus the
// work it interrupts.
func leaseBeyondPauses(sc protocols.Scenario) (protocols.Scenario, []string, bool) {
	var worst int64
	for _, f := range sc.Faults {
		if f.Kind == trace.FaultGCPause || f.Kind == trace.FaultSlowWork {
			worst = max(worst, f.DurMs)
		}
	}
	if worst == 0 {
		return sc, nil, false
	}
	want := (worst + sc.WorkMs) * 3 / 2
	want = (want + 999) / 1000 * 1000
	if want <= sc.LeaseMs {
		return sc, nil, false
	}
	sc.LeaseMs = want
	return sc, []string{"--lease-ms", strconv.FormatInt(want, 10)}, true
}

// fenceRefused: the protected data refused at least one stale write.
func fenceRefused(re *Outcome) bool { return re.File.Report.Damage.StaleWritesRejected > 0 }

// answered returns whether a re-run has an operation of kind that
// answered result: a release or renewal the owner check refused
// (not-owner), an acquire Redis refused (fail).
func answered(kind, result string) func(re *Outcome) bool {
	return func(re *Outcome) bool {
		return slices.ContainsFunc(re.File.Trace.Ops, func(op trace.Op) bool { return op.Kind == kind && op.Result == result })
	}
}

// expiryCauses are the ways a lease ends under its holder: fencing is what
// keeps the data safe from all of them.
var expiryCauses = []string{
	checker.CausePrematureExpiry, checker.CauseDelayedWrite, checker.CauseClockJump, checker.CauseClockDrift, checker.CauseRestart,
	checker.CauseLostAfterFailover, checker.CauseOrphanAcquire, checker.CauseValidityNotChecked,
}

// What a remedy must stop: a defect of the lock's own code is an ownership
// violation and the overlaps it leads to.
var (
	exclusion = []string{checker.PropMutex}
	ownership = []string{checker.PropOwnership, checker.PropMutex}
	damage    = []string{checker.PropDamage}
)

// remedies are tried in this order: the lock's own defects first, then
// fencing, which protects the data whatever ends a lease, then a longer
// lease, which only holds while no pause outlasts it.
//
// The owner-checked release swaps in a lock that differs in its release
// alone (and the token it compares), the validity check one that differs
// in the check alone; the other swaps bring more with them and must show
// their mechanism at work. redisson-3.16.1 is a whole other lock than
// setnx-daemon-renew (a hash, pub/sub, its own watchdog): it must refuse
// a renewal. setnx-lua-del brings a lease and a compare-and-delete to
// local-mutex: Redis must refuse an acquire. RFencedLock brings
// Redisson's watchdog and its WAIT for the replicas: the fence must
// refuse a write. No remedy swaps redlock-setnx-extend for an
// owner-checked extend: plain redlock, the catalog's only candidate, has
// no keep-alive at all, so it could never show an extend refused.
var remedies = []remedy{
	{
		change: "release with a script that deletes the key only if it still holds this client's token (compare-and-delete)",
		short:  "an owner-checked release", properties: ownership,
		causes: []string{checker.CauseForeignRelease, checker.CauseRetriedCommand},
		apply:  withProtocol("setnx-lua-del", "setnx-del", "setnx-get-del"),
	},
	{
		change: "renew only a key that still holds this client's token (Redisson's watchdog script checks the owner)",
		short:  "an owner-checked renewal", properties: ownership,
		causes: []string{checker.CauseForeignRenewal},
		apply:  withProtocol("redisson-3.16.1", "setnx-daemon-renew"),
		shown:  answered(model.OpRenew, model.ResNotOwner),
	},
	{
		change: "check the time left on the lock after acquiring it and give it up when its validity is spent (redsync's check)",
		short:  "the validity check", properties: exclusion,
		causes: []string{checker.CauseValidityNotChecked},
		apply:  withProtocol("redlock", "redlock-unchecked"),
	},
	{
		change: "take the lock in Redis, not only inside the process",
		short:  "a Redis lock", properties: exclusion,
		causes: []string{checker.CauseLocalLockOnly},
		apply:  withProtocol("setnx-lua-del", "local-mutex"),
		shown:  answered(model.OpAcquire, model.ResFail),
	},
	{
		change: "pass a fencing token with every write and make the protected data reject older tokens",
		short:  "fencing", properties: damage,
		causes: expiryCauses,
		apply:  withProtocol("fenced"),
		shown:  fenceRefused,
	},
	{
		change: "make the lease longer than the longest pause plus the work (and renew it while working)",
		short:  "a longer lease", properties: exclusion,
		causes: []string{checker.CausePrematureExpiry},
		apply:  leaseBeyondPauses,
	},
}

// Advise tries each change that could remove o's violations, re-running o's
// scenario (same seed, same faults) with it, and returns the changes whose
// run no longer has the violations they target. A release with a
// published bug is first offered the release that fixed it.
func Advise(o *Outcome) []Advice {
	rep := o.File.Report
	if rep.Verdict != checker.VerdictViolation {
		return nil
	}
	var out []Advice
	for _, r := range remediesFor(o.File.Scenario) {
		if a, ok := r.try(o.File.Scenario, rep); ok {
			out = append(out, a)
		}
	}
	return out
}

// remediesFor lists the remedies to try on sc: the fixed release of a
// published bug sc's protocol has, then the general ones.
func remediesFor(sc protocols.Scenario) []remedy {
	var out []remedy
	for _, b := range Bugs() {
		if b.Scenario.Protocol == sc.Protocol && b.Bug.FixedProtocol != "" {
			out = append(out, remedy{
				change: "use " + b.Bug.FixedProtocol + ", the release that fixed " + b.Bug.ID,
				short:  b.Bug.FixedProtocol, properties: []string{cmp.Or(b.Expect.Property, checker.PropMutex)},
				causes: []string{b.Expect.Cause},
				apply:  withProtocol(b.Bug.FixedProtocol),
			})
		}
	}
	return append(out, remedies...)
}

// try re-runs sc with r's change if rep has a violation r targets, and
// returns the advice when the re-run has none and shows r's mechanism at
// work where r must show it.
func (r remedy) try(sc protocols.Scenario, rep checker.Report) (Advice, bool) {
	if !r.targets(rep) {
		return Advice{}, false
	}
	changed, flags, ok := r.apply(sc)
	if !ok {
		return Advice{}, false
	}
	re, err := Execute(changed)
	if err != nil || re.File.Report.Verdict == checker.VerdictUnknown || r.targets(re.File.Report) {
		return Advice{}, false
	}
	if r.shown != nil && !r.shown(re) {
		return Advice{}, false // clean, but not by the change's doing
	}
	return Advice{
		Change: r.change, Properties: r.properties, Causes: r.removed(rep), Protocol: changed.Protocol,
		Result: r.short + ": " + resultLine(re.File.Report), Scenario: re.File.Scenario,
		TraceSHA256: re.File.TraceSHA256, Flags: flags,
	}, true
}

// targets reports whether rep has a violation r is meant to remove: one of
// its property and causes, or, for the protected data, any harm.
func (r remedy) targets(rep checker.Report) bool {
	for _, v := range rep.Violations {
		if slices.Contains(r.properties, v.Property) && slices.Contains(r.causes, v.Cause) {
			return true
		}
	}
	if !slices.Contains(r.properties, checker.PropDamage) {
		return false
	}
	d, _ := rep.Harm()
	return d.Total() > 0
}

// removed lists the causes of rep's violations that r targets.
func (r remedy) removed(rep checker.Report) []string {
	out := []string{}
	for _, v := range rep.Violations {
		if slices.Contains(r.properties, v.Property) && slices.Contains(r.causes, v.Cause) && !slices.Contains(out, v.Cause) {
			out = append(out, v.Cause)
		}
	}
	return out
}

// resultLine says what a re-run found, the properties it still breaks
// included.
func resultLine(rep checker.Report) string {
	var parts []string
	seen := map[string]bool{}
	for _, v := range rep.Violations {
		if !seen[v.Property] {
			seen[v.Property] = true
			parts = append(parts, v.Property+" still broken ("+v.Cause+")")
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "no violation")
	}
	d, harmless := rep.Harm()
	if d.Total() == 0 {
		parts = append(parts, "no damage")
	}
	for _, c := range d.Counts() {
		switch {
		case c.N == 1:
			parts = append(parts, "1 "+c.One)
		case c.N > 1:
			parts = append(parts, fmt.Sprintf("%d %s", c.N, c.Other))
		}
	}
	if harmless > 0 {
		parts = append(parts, fmt.Sprintf("%d late %s with no newer writer", harmless, map[bool]string{true: "write", false: "writes"}[harmless == 1]))
	}
	return strings.Join(parts, ", ")
}
