package locktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

// Result is one scenario run in the sim and judged by the checker.
type Result struct {
	Scenario protocols.Scenario // as run: normalized, every field explicit
	Outcome  *traces.Outcome    // the trace file and the checker's result
	Failure  *Failure           // nil when the property holds
}

// Failure says how a scenario broke the property.
type Failure struct {
	// Title is the first line of the failure message, stable per
	// property and cause: "locksim: mutual-exclusion violated
	// (premature-expiry)".
	Title string
	// Property is the property broken, in the checker's taxonomy:
	// checker.PropOwnership (a client renewed or released a lease it did
	// not hold), checker.PropMutex (two holders at once),
	// checker.PropDamage (the protected data) or checker.PropLiveness.
	Property string
	// Cause is one of checker.Causes() (premature-expiry,
	// foreign-release, lost-after-failover...), or "damage" for damage
	// the checker did not explain.
	Cause string
	// Mechanism is the checker's finer reason within the cause, when it
	// gives one ("holder paused", "plain DEL after expiry"); may be empty.
	Mechanism string
	// Violations are the ones the property counts, the one the title
	// names first.
	Violations []checker.Violation
	// Also are the run's other violations, of properties the Config does
	// not check: a lock that deletes whoever holds the key breaks
	// ownership (foreign-release) in the same run that breaks mutual
	// exclusion. The message lists them after the ones that count.
	Also   []checker.Violation
	Damage checker.Damage

	// Filled by Check and Expect (not by Evaluate, which writes no
	// trace):

	// Clients are the clients of the first violation ("c1/t1").
	Clients []string
	// Scenario is the smallest failing scenario; Seed its noise seed.
	Scenario protocols.Scenario
	Seed     uint64
	// TracePath is the trace file written for it (under Config.TraceDir),
	// and Replay the one command that replays it in a new process.
	TracePath, Replay string
	// Message is the whole failure message Check would fail with.
	Message string
	// Outcome is the run: its trace file and the checker's result.
	Outcome *traces.Outcome
}

// key identifies a way of failing: rapid only accepts a smaller case
// that fails the same way.
func (f *Failure) key() string { return f.Property + "/" + f.Cause }

// causeDamage is the cause of damage no violation explains.
const causeDamage = "damage"

// Evaluate runs sc (normalized first) and judges it by cfg's property.
// With cfg.Resource set, a scenario that names no workload runs the
// resource's.
func Evaluate(cfg Config, sc protocols.Scenario) (*Result, error) {
	c, err := cfg.prepare()
	if err != nil {
		return nil, err
	}
	if c.Resource != nil && sc.Workload == "" {
		sc.Workload = c.Workload
	}
	return c.evaluate(sc, "")
}

// evaluate runs sc; with want set, only a failure of that key counts.
func (c *config) evaluate(sc protocols.Scenario, want string) (*Result, error) {
	sc.Liveness = sc.Liveness || c.Liveness || c.FailOn != nil && c.FailOn.Fails([]string{checker.PropLiveness})
	o, err := c.execute(sc)
	if err != nil {
		return nil, err
	}
	res := &Result{Scenario: o.File.Scenario, Outcome: o}
	res.Failure = c.judge(o.File.Report, want)
	return res, nil
}

// counts reports whether violation v breaks inv.
func counts(inv Invariant, v checker.Violation) bool {
	switch inv {
	case MutualExclusion:
		return v.Property == checker.PropMutex
	case NoDamage:
		return v.Property == checker.PropDamage
	case FenceHeld:
		return v.Property == checker.PropDamage && v.Model == "fenced-register"
	case Ownership:
		return v.Property == checker.PropOwnership
	}
	return v.Property != checker.PropLiveness
}

// judge returns the failure rep shows under c's property, or nil. With
// want set, only a failure of that key counts.
func (c *config) judge(rep checker.Report, want string) *Failure {
	var vs []checker.Violation
	if c.FailOn != nil {
		if !rep.Fails(c.FailOn) {
			return nil
		}
		for _, v := range rep.Violations {
			if c.FailOn.Fails([]string{v.Property}) {
				vs = append(vs, v)
			}
		}
	}
	for _, v := range rep.Violations {
		if c.FailOn == nil && (counts(c.Property, v) || c.Liveness && v.Property == checker.PropLiveness) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 && (c.FailOn != nil || c.Property == NoDamage || c.Property == Both) && rep.Damage.Total() > 0 {
		vs = []checker.Violation{{Property: checker.PropDamage, Cause: causeDamage,
			Explanation: "the protected data was damaged, but no violation explains it."}}
	}
	if len(vs) == 0 {
		return nil
	}
	lead := 0
	if want != "" {
		lead = -1
		for i, v := range vs {
			if v.Property+"/"+v.Cause == want {
				lead = i
				break
			}
		}
		if lead < 0 {
			return nil // it fails, but another way
		}
	}
	v := vs[lead]
	ordered := append([]checker.Violation{v}, append(vs[:lead:lead], vs[lead+1:]...)...)
	var also []checker.Violation
	for _, x := range rep.Violations {
		if !slices.ContainsFunc(vs, func(y checker.Violation) bool { return sameViolation(x, y) }) {
			also = append(also, x)
		}
	}
	return &Failure{
		Title:      "locksim: " + v.Property + " violated (" + v.Cause + ")",
		Property:   v.Property,
		Cause:      v.Cause,
		Mechanism:  v.Reason,
		Violations: ordered,
		Also:       also,
		Damage:     rep.Damage,
	}
}

func sameViolation(a, b checker.Violation) bool {
	return a.Property == b.Property && a.Cause == b.Cause && a.Key == b.Key && a.AtMs == b.AtMs &&
		slices.Equal(a.Clients, b.Clients)
}

// harm is the damage to the data itself. A stale write accepted (one
// that landed after its writer's lease ended) is left out: when it did
// harm, a resource check reports a violation for it (a duplicate, a lost
// update, a write under an older fencing token); alone, it is a write
// no other holder contradicted, as when a fenced lock's only client
// resumes from a pause.
func harm(d checker.Damage) int { return d.Total() - d.StaleWritesAccepted }

// describe renders a failing result: the title, the scenario, its fault
// schedule, the violations that count and the damage.
func describe(res *Result) string {
	var b strings.Builder
	sc, f := res.Scenario, res.Failure
	b.WriteString(f.Title + "\n")
	fmt.Fprintf(&b, "  %s\n", scenarioLine(sc))
	fmt.Fprintf(&b, "  faults (%d):\n", len(sc.Faults))
	for _, ft := range sc.Faults {
		fmt.Fprintf(&b, "    %s\n", faultLine(ft))
	}
	if len(sc.Faults) == 0 {
		b.WriteString("    none\n")
	}
	const shown = 4
	for i, v := range f.Violations {
		if i == shown {
			fmt.Fprintf(&b, "  ... and %d more violations (see the trace)\n", len(f.Violations)-shown)
			break
		}
		cause := v.Cause
		if v.Reason != "" {
			cause += " (" + v.Reason + ")"
		}
		fmt.Fprintf(&b, "  %s: %s", v.Property, cause)
		if v.Key != "" {
			fmt.Fprintf(&b, " on %s", v.Key)
		}
		if len(v.Clients) > 0 {
			fmt.Fprintf(&b, ", %s", strings.Join(v.Clients, " and "))
		}
		if v.AtMs > 0 {
			fmt.Fprintf(&b, ", at t=%.1f s", v.AtMs/1000)
		}
		fmt.Fprintf(&b, "\n    %s\n", v.Explanation)
	}
	for i, v := range f.Also {
		if i == shown {
			fmt.Fprintf(&b, "  ... and %d more (see the trace)\n", len(f.Also)-shown)
			break
		}
		fmt.Fprintf(&b, "  also broken (not checked here): %s: %s", v.Property, v.Cause)
		if v.Key != "" {
			fmt.Fprintf(&b, " on %s", v.Key)
		}
		if len(v.Clients) > 0 {
			fmt.Fprintf(&b, ", %s", strings.Join(v.Clients, " and "))
		}
		if v.AtMs > 0 {
			fmt.Fprintf(&b, ", at t=%.1f s", v.AtMs/1000)
		}
		b.WriteString("\n")
	}
	if d := f.Damage; d.Total() > 0 || d.StaleWritesRejected > 0 {
		fmt.Fprintf(&b, "  damage: %s\n", damageLine(d))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func scenarioLine(sc protocols.Scenario) string {
	s := fmt.Sprintf("%s / %s on %s", sc.Protocol, sc.Workload, sc.Topology)
	switch sc.Topology {
	case protocols.TopoReplicated:
		s += fmt.Sprintf(" (%s, down-after %s)", plural(sc.Nodes, "replica"), secs(sc.DownAfterMs))
	case protocols.TopoIndependent:
		s += fmt.Sprintf(" (%s)", plural(sc.Nodes, "master"))
	}
	s += fmt.Sprintf(": %s x %s x %s, lease %s, work %s, stagger %s, retry %s, seed %d",
		plural(sc.Clients, "client"), plural(sc.Threads, "thread"), plural(sc.Ops, "op"),
		secs(sc.LeaseMs), secs(sc.WorkMs), secs(sc.StaggerMs), secs(sc.RetryMs), sc.Seed)
	return s
}

func faultLine(f trace.Fault) string {
	s := fmt.Sprintf("%s %s at %s", f.Kind, f.Target, secs(f.AtMs))
	switch f.Kind {
	case trace.FaultClockJump:
		return s + fmt.Sprintf(": %s%s", signed(f.Value), secs(abs(f.Value)))
	case trace.FaultClockDrift:
		return s + fmt.Sprintf(": %s%d ppm", signed(f.Value), abs(f.Value))
	case trace.FaultInterrupt:
		return s
	case trace.FaultClientCrash:
		if f.DurMs == 0 {
			return s + ", never restarts"
		}
		return s + ", restarts after " + secs(f.DurMs)
	}
	s += " for " + secs(f.DurMs)
	switch f.Kind {
	case trace.FaultSlowWork:
		s += fmt.Sprintf(": critical sections %s longer", secs(f.Value))
	case trace.FaultReplicationLag, FaultDelay:
		s += fmt.Sprintf(": %s slower", secs(f.Value))
	case trace.FaultReplyLoss:
		v := f.Value
		if v == 0 {
			v = 1000
		}
		s += fmt.Sprintf(": %s%% of replies lost", strconv.FormatFloat(float64(v)/10, 'f', -1, 64))
	}
	return s
}

func damageLine(d checker.Damage) string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(d.DuplicateInserts, "duplicate inserts")
	add(d.LostUpdates, "lost updates")
	add(d.OversoldUnits, "oversold units")
	add(d.StaleWritesAccepted, "stale writes accepted")
	add(d.LostElements, "lost elements")
	add(d.StaleWritesRejected, "stale writes rejected (no harm)")
	return strings.Join(parts, ", ")
}

// secs renders ms as seconds, as short as exact: "67.5 s", "0.3 s".
func secs(ms int64) string {
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + " s"
}

func signed(v int64) string {
	if v < 0 {
		return "-"
	}
	return "+"
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// safeName turns a test name into a file name, as rapid does for its
// fail files.
func safeName(name string) string {
	if name == "" {
		return "locktest"
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, name)
}

// tracePath is where the failing trace of test name is written.
func (c *config) tracePath(name string, o *traces.Outcome) string {
	return filepath.Join(c.TraceDir, safeName(name)+"-"+o.File.TraceSHA256[:12]+".json")
}

// write writes res's trace for test name and returns its path.
func (c *config) write(name string, res *Result) (string, error) {
	path := c.tracePath(name, res.Outcome)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if err := traces.Write(path, res.Outcome.File); err != nil {
		return "", err
	}
	return path, nil
}

// ReplayFlag is the go test flag that replays a trace file with the
// protocols registered in the test binary: for protocols of one's own,
// which the locksim CLI does not know.
const ReplayFlag = "locktest.replay"

// replayCommand is the one command that replays the trace at path.
func (c *config) replayCommand(name, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	if !c.custom {
		return "locksim replay " + abs
	}
	dir, err := os.Getwd()
	if err != nil {
		dir = "."
	}
	return fmt.Sprintf("cd %s && go test -run '%s' -%s=%s", dir, runPattern(name), ReplayFlag, path)
}

// runPattern is a go test -run pattern that selects test name alone.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// message is the whole failure message: describe plus where the trace
// is and how to replay it.
func (c *config) message(name string, res *Result, path string) string {
	return describe(res) + "\n  trace: " + path + "\n  replay: " + c.replayCommand(name, path)
}

// search is the state of one property across rapid's runs.
type search struct {
	c      *config
	defer_ bool // Check writes the trace once rapid is done
	budget int  // scenarios to run; 0: as many as rapid asks for
	runs   int  // scenarios run
	found  int  // runs until the first failure
	// unknown counts runs the checker could not decide (and that did not
	// fail otherwise).
	unknown int
	// want is the key of the first failure: from then on only a failure
	// of the same key counts, so rapid shrinks toward a smaller case of
	// the same property and cause.
	want        string
	first, last *Result
	lastSc      protocols.Scenario // the last failing scenario (a violation or an error)
	lastMsg     string             // its message
	firstErr    error
	written     string // the last trace written (Property mode)
}

// Property returns cfg's property as a rapid property, for users who
// compose their own rapid.Check: it draws a scenario, runs it and fails
// through a single t.Fatalf site whose first line names the property and
// the cause. Each failing case writes its trace under cfg.TraceDir and
// removes the one the previous, larger, failing case wrote, so that once
// rapid is done shrinking, the trace of the smallest case is left. It
// panics if cfg is not valid. A GoRedis lock's runs need the test's
// *testing.T: use PropertyT (Property's property fails each case with
// a message that says so).
func Property(cfg Config) func(*rapid.T) {
	s := &search{c: cfg.mustPrepare()}
	if s.c.bridged {
		return func(t *rapid.T) { t.Fatalf("%v", errPropertyNeedsT) }
	}
	return s.property
}

func (s *search) property(t *rapid.T) {
	if s.budget > 0 && s.runs >= s.budget && s.want == "" {
		return // Checks reached: rapid's remaining runs pass untried
	}
	sc := s.c.draw(rapidSource{t})
	msg := ""
	if s.want != "" && s.c.ShrinkRuns > 0 && s.runs-s.found >= s.c.ShrinkRuns {
		// Shrink budget spent: every new case passes untried, so rapid
		// stops with the smallest case so far, which still fails the
		// same way when rapid runs it again (to confirm it, to report it).
		if sameScenario(sc, s.lastSc) {
			msg = s.lastMsg
		}
	} else {
		msg = s.check(t.Name(), sc)
	}
	if msg != "" {
		t.Fatalf("%s", msg) // the single failure site
	}
}

func sameScenario(a, b protocols.Scenario) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// check runs sc and returns the failure message, or "".
func (s *search) check(name string, sc protocols.Scenario) string {
	s.runs++
	res, err := s.c.evaluate(sc, s.want)
	if err != nil {
		if s.want != "" && s.want != "error" {
			return ""
		}
		s.want = "error"
		if s.firstErr == nil {
			s.firstErr, s.found = err, s.runs
		}
		s.lastSc = sc
		s.lastMsg = fmt.Sprintf("locktest: scenario did not run: %v\n  %s", err, scenarioLine(sc))
		return s.lastMsg
	}
	if res.Failure == nil {
		if res.Outcome.File.Report.Verdict == checker.VerdictUnknown {
			s.unknown++
		}
		return ""
	}
	s.want = res.Failure.key()
	if s.first == nil {
		s.first, s.found = res, s.runs
	}
	s.last, s.lastSc = res, sc
	s.lastMsg = s.report(name, res)
	return s.lastMsg
}

// report writes res's trace unless Check does it later, and returns the
// failure message.
func (s *search) report(name string, res *Result) string {
	if s.defer_ {
		return describe(res)
	}
	path, err := s.c.write(name, res)
	if err != nil {
		return describe(res) + "\n  trace: not written: " + err.Error()
	}
	if s.written != "" && s.written != path {
		os.Remove(s.written) // a smaller case superseded it
	}
	s.written = path
	return s.c.message(name, res, path)
}
