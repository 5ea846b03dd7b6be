package locktest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// Invariant is what must hold in every scenario.
type Invariant string

// Invariants.
const (
	// MutualExclusion: no two clients ever believe they hold one lock at
	// once (the checker's mutual-exclusion property).
	MutualExclusion Invariant = "mutual-exclusion"
	// NoDamage: the protected data ends as serial use would leave it: no
	// resource violation and zero damage to the data (duplicate inserts,
	// lost updates, oversold units, lost elements). A stale write
	// accepted does not fail NoDamage by itself: when it did harm, a
	// resource check reports it as a violation. Fencing guards writes,
	// not the reads that decided them: a fencing lock whose holders
	// overlap can still damage a check-then-insert or a
	// read-modify-write (see FenceHeld for what fencing promises). With
	// Config.Resource, the check of its operations against its Spec
	// counts too.
	NoDamage Invariant = "resource"
	// Both: MutualExclusion, NoDamage and Ownership.
	Both Invariant = "both"
	// Ownership: no client renews or releases a lease it does not hold
	// (the checker's ownership property: foreign-release, foreign-renewal,
	// retried-command). A release that deletes the key whoever holds it
	// breaks it as soon as a holder outlived its lease.
	Ownership Invariant = "ownership"
	// FenceHeld: the fenced storage never accepted a write with an older
	// token after a newer one (the fenced-register check passed), whatever
	// the holds did. Only workloads that write through fencing tokens
	// (a fencing lock on a workload with a fenced storage, or a
	// Config.Resource written through Section.Write) are judged; a lock
	// that hands out no tokens (not a protocols.Fencer, as every GoRedis
	// lock) is refused with FenceHeld, which could only hold vacuously.
	FenceHeld Invariant = "fence-held"
)

// FaultDelay is the sim's message-delay fault, which the scenario
// generator can draw although GenerateFaults does not.
const FaultDelay = trace.FaultDelay

// Config says which scenarios to draw and what must hold in them.
type Config struct {
	// Protocol is the lock under test, by catalog name (see `locksim
	// list`), or the name of a protocol registered with
	// protocols.Register. The lock under test is one of Protocol, Lock
	// and GoRedis: a Config that sets two of them is refused.
	Protocol string
	// Lock is a protocol of one's own, passed directly: it is registered
	// with protocols.Register on first use. Names are global to the test
	// binary: a value built anew on each run of a test (go test -count=N,
	// subtests) may reuse its name as long as it describes the same
	// protocol (lease, topologies, client settings); give other protocols
	// their own names.
	Lock *protocols.Protocol
	// GoRedis is a lock written with go-redis, run unmodified through
	// locksim's bridge (see GoRedis). Check
	// and Fuzz run it; it needs their *testing.T, because every run
	// happens in a testing/synctest bubble, and it cannot be checked in
	// parallel tests. Its Name is registered as Lock's is.
	GoRedis *GoRedis
	// Workload is the application code that uses the lock, by name;
	// default unique-name. The workload is one of Workload, Resource and
	// Data: a Config that sets two of them is refused.
	Workload string
	// Resource is a protected resource of one's own, with its model: it
	// becomes the workload (named after its Spec), and the checker checks
	// its operations against the model. Names are global to the test
	// binary, as Lock's are.
	Resource *Resource
	// Data is data of one's own in the same simulated Redis, written
	// with go-redis inside the critical section (see Data): it becomes
	// the workload, and its Invariant's harm the run's damage. GoRedis
	// locks only, on topologies single and replicated.
	Data *Data
	// Faults are the fault kinds drawn (trace.KindNames(), plus
	// FaultDelay). Empty: no faults.
	Faults []string
	// Topologies are drawn among, the first one preferred while
	// shrinking; they must be topologies the protocol runs on. Empty: the
	// protocol's default topology.
	Topologies []string
	// Property is what must hold; default MutualExclusion.
	Property Invariant
	// FailOn, when set, replaces Property with the exit-status policy of
	// `locksim --fail-on`: a scenario fails when it broke one of the
	// properties named (checker.ParseFailOn reads "ownership",
	// "exclusion", "damage", "liveness", "any"; checker.Report.Fails
	// decides). Liveness is checked when FailOn names it.
	FailOn checker.FailOn
	// MaxClients bounds the client processes (default 3), MaxThreads the
	// threads per client (default 1), MaxOps the operations per thread
	// (default 3), MaxFaults the fault events (default 3 when Faults is
	// set).
	MaxClients, MaxThreads, MaxOps, MaxFaults int
	// Leases are the leases drawn among (the first one preferred); empty:
	// the protocol's default lease.
	Leases []time.Duration
	// Work is the time spent inside the critical section; 0: the
	// workload's default.
	Work time.Duration
	// Checks is how many scenarios Check runs (a fifth of it under
	// -short, as rapid does); 0: rapid's -rapid.checks. Property and
	// Fuzz leave the count to rapid and to the fuzzer.
	Checks int
	// ShrinkRuns bounds the scenarios run while shrinking a failure;
	// beyond it, rapid keeps the smallest failing case found so far. 0:
	// until rapid stops (within -rapid.shrinktime, 30 s by default).
	ShrinkRuns int
	// Liveness adds the checker's liveness checks to Property: after the
	// last fault heals, no client waits through a free lock and no key
	// outlives its holder (causes lost-wakeup, renewal-after-release,
	// orphan-key), each by more than two leases.
	Liveness bool
	// TraceDir is where Check and Property write failing traces; default
	// testdata/locksim (relative to the package under test).
	TraceDir string
}

// config is a Config with its defaults filled and checked.
type config struct {
	Config
	proto   protocols.Protocol
	topos   []string
	leases  []int64    // ms
	custom  bool       // not a catalog protocol or workload: the locksim CLI cannot replay it
	bridged bool       // a GoRedis lock: every run needs t's synctest bubble
	t       *testing.T // the test a bridged lock runs in
	slot    *slot      // where Lock is registered; nil for a protocol named by Protocol
}

// catalog holds the names of the built-in protocols, the ones the
// locksim CLI knows.
var catalog = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range protocols.Protocols() {
		m[p.Name] = true
	}
	return m
}()

// prepare fills the defaults, registers Lock and checks cfg: locktest's
// own fields here, the scenario fields its draws take (protocol,
// workload, topologies, fault kinds, leases, work) by protocols'
// Scenario.Validate, the one validator of a scenario.
func (cfg Config) prepare() (*config, error) {
	c := &config{Config: cfg}
	if err := c.resolveLock(); err != nil {
		return nil, err
	}
	if err := c.checkOwn(); err != nil {
		return nil, err
	}
	if err := c.checkScenarios(); err != nil {
		return nil, err
	}
	if c.TraceDir == "" {
		c.TraceDir = "testdata/locksim"
	}
	return c, nil
}

// resolveLock registers Config.Lock (or the GoRedis lock) and looks up
// the protocol under test.
func (c *config) resolveLock() error {
	if err := oneOf("the lock under test", set{"Config.Protocol", c.Protocol != ""},
		set{fieldLock, c.Lock != nil}, set{fieldGoRedis, c.GoRedis != nil}); err != nil {
		return err
	}
	field := fieldLock
	if c.Lock == nil && c.GoRedis != nil {
		p, err := c.GoRedis.registered()
		if err != nil {
			return err
		}
		if len(c.Leases) > 0 {
			return fmt.Errorf("locktest: Config.GoRedis %s sets its own expiry: Config.Leases does not apply (set GoRedis.Lease)", p.Name)
		}
		c.Lock, c.bridged, field = p, true, fieldGoRedis
	}
	if c.Lock != nil {
		s, err := bind(field, c.Lock)
		if err != nil {
			return err
		}
		c.slot, c.Protocol = s, c.Lock.Name
	}
	if c.Protocol == "" {
		return errors.New("locktest: Config needs a Protocol, a Lock or a GoRedis")
	}
	p, err := protocols.Lookup(c.Protocol)
	if err != nil {
		return fmt.Errorf("locktest: %v", err)
	}
	c.proto = p
	c.bridged = c.bridged || p.Attach != nil // a GoRedis lock named by Protocol
	c.custom = c.Lock != nil || !catalog[p.Name]
	return nil
}

// set is a Config field and whether the user set it.
type set struct {
	field string
	on    bool
}

// oneOf refuses a Config where more than one of fields, which all say
// what, is set.
func oneOf(what string, fields ...set) error {
	var on []string
	for _, f := range fields {
		if f.on {
			on = append(on, f.field)
		}
	}
	if len(on) < 2 {
		return nil
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = strings.TrimPrefix(f.field, "Config.")
	}
	both := "both"
	if len(on) > 2 {
		both = "all"
	}
	return fmt.Errorf("locktest: %s are %s set: %s is one of %s; set only one", and(on), both, what, and(names))
}

// and joins words as a list: "a, b and c".
func and(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// checkOwn fills and checks the fields only locktest has: the property
// and the bounds of what it draws.
func (c *config) checkOwn() error {
	switch c.Property {
	case "":
		c.Property = MutualExclusion
	case MutualExclusion, NoDamage, Both, Ownership:
	case FenceHeld:
		if fences, known := handsOutTokens(c.proto); known && !fences {
			return fmt.Errorf("locktest: Config.Property %s: %s hands out no fencing tokens (its locks are not a protocols.Fencer), so no write is fenced and there is nothing to check; check a fencing lock, or another Property",
				c.Property, c.Protocol)
		}
	default:
		return fmt.Errorf("locktest: unknown Config.Property %q (%s, %s, %s, %s or %s)", c.Property, MutualExclusion, NoDamage, Ownership, Both, FenceHeld)
	}
	for _, k := range c.Faults {
		if why, ok := bridgedFaults[k]; ok && c.bridged {
			return fmt.Errorf("locktest: fault %s is not available for a lock run through the go-redis bridge: %s", k, why)
		}
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.MaxClients, protocols.DefaultClients)
	def(&c.MaxThreads, 1)
	def(&c.MaxOps, 3)
	if len(c.Faults) > 0 {
		def(&c.MaxFaults, 3)
	} else {
		c.MaxFaults = 0
	}
	switch {
	case c.MaxClients < 1 || c.MaxClients > 50:
		return errors.New("locktest: MaxClients must be between 1 and 50")
	case c.MaxThreads < 1 || c.MaxThreads > 16:
		return errors.New("locktest: MaxThreads must be between 1 and 16")
	case c.MaxOps < 1 || c.MaxOps > 100:
		return errors.New("locktest: MaxOps must be between 1 and 100")
	case c.MaxFaults < 0 || c.MaxFaults > 50:
		return errors.New("locktest: MaxFaults must be between 0 and 50")
	case c.Work < 0 || c.Checks < 0:
		return errors.New("locktest: Work and Checks must not be negative")
	}
	for _, l := range c.Leases {
		if l < time.Millisecond {
			return fmt.Errorf("locktest: lease %v is shorter than 1 ms", l)
		}
		c.leases = append(c.leases, l.Milliseconds())
	}
	if len(c.leases) == 0 {
		c.leases = []int64{c.proto.Lease.Milliseconds()}
	}
	return nil
}

// handsOutTokens reports whether p's locks hand out fencing tokens
// (protocols.IsFenced); known is false when p's New cannot build a lock
// outside a run (it panicked).
func handsOutTokens(p protocols.Protocol) (fences, known bool) {
	defer func() {
		if recover() != nil {
			fences, known = false, false
		}
	}()
	return protocols.IsFenced(p), true
}

// checkScenarios fills the workload and topologies and has protocols
// validate the largest scenario of each topology and lease locktest may
// draw.
func (c *config) checkScenarios() error {
	if err := oneOf("the workload", set{"Config.Workload", c.Workload != ""},
		set{"Config.Resource", c.Resource != nil}, set{"Config.Data", c.Data != nil}); err != nil {
		return err
	}
	if c.Resource != nil {
		if err := registerResource(c.Resource); err != nil {
			return err
		}
		c.Workload = c.Resource.Spec.Name
		c.custom = true // the locksim CLI does not know the workload
	}
	if c.Workload == "" {
		c.Workload = "unique-name"
	}
	c.topos = c.Topologies
	if len(c.topos) == 0 {
		c.topos = protocols.SupportedTopologies(c.proto)[:1]
	}
	if c.Data != nil {
		if err := c.checkData(); err != nil {
			return err
		}
	}
	for _, tp := range c.topos {
		for _, l := range c.leases {
			sc := protocols.Scenario{Protocol: c.Protocol, Workload: c.Workload, Topology: tp, LeaseMs: l,
				WorkMs: c.Work.Milliseconds(), Clients: c.MaxClients, Threads: c.MaxThreads, Ops: c.MaxOps,
				FaultKinds: c.Faults}
			if err := sc.Validate(); err != nil {
				return fmt.Errorf("locktest: %v", err)
			}
		}
	}
	return nil
}

// mustPrepare is prepare for the functions that cannot return an error.
func (cfg Config) mustPrepare() *config {
	c, err := cfg.prepare()
	if err != nil {
		panic(err)
	}
	return c
}
