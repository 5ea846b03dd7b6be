package locktest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/traces"
)

// TB is what Check needs of a test: *testing.T, or anything rapid.Check
// accepts.
type TB = rapid.TB

var replayPath = flag.String(ReplayFlag, "", "locktest: replay this trace `FILE` in the Check of its protocol instead of drawing scenarios")

// Check fails t if some scenario cfg describes breaks cfg.Property.
//
// It first re-runs the failing traces saved by earlier runs of the same
// test (cfg.TraceDir/<test name>-*.json): a counterexample that still
// fails fails the test at once, even after the generator changed. Then
// rapid draws cfg.Checks scenarios; on a failure, rapid shrinks it,
// keeping only smaller cases that fail the same way (same property and
// cause), and Check polishes the result with moves rapid cannot make in
// one step (merge or drop fault events, drop a client and move its
// faults to another, return settings and the noise seed to their
// simplest values, lower each fault's numbers on the generator's grid).
//
// Check fails through a single t.Fatalf whose message starts with a line
// stable per property and cause ("locksim: mutual-exclusion violated
// (premature-expiry)"), explains the violation, and gives the path of
// the trace written for the smallest case (cfg.TraceDir/<test
// name>-<hash>.json, written atomically) and the one command that
// replays it: `locksim replay FILE` for catalog protocols, a go test run
// with -locktest.replay=FILE for protocols registered by the test
// binary.
//
// With -locktest.replay=FILE, Check replays FILE instead of drawing
// scenarios, verifies the trace byte for byte and fails if the property
// is broken (Checks of other protocols skip).
//
// Check may run in parallel tests, except for a GoRedis lock (its runs
// seed process-wide randomness). A Config.Lock or Config.GoRedis built
// inside the test function is a new value on every run of the test
// (-count=N, subtests): each may reuse the name of the previous one as
// long as it describes the same protocol.
func Check(t TB, cfg Config) {
	t.Helper()
	if r := check(t, cfg); r.msg != "" {
		t.Fatalf("%s", r.msg) // the single failure site
	}
}

// found is what a Check found: nothing (msg empty), a scenario that
// could not run or a bad Config (msg alone), or a violation (failure).
type found struct {
	msg     string
	failure *Failure
	held    string // when nothing was found: what held, for Expect's message
}

// fail is a message without a violation.
func fail(msg string) found { return found{msg: msg} }

// violation is the failing case res, whose trace is at path; note
// follows the message.
func (c *config) violation(name string, res *Result, path, note string) found {
	msg := c.message(name, res, path) + note
	f := res.Failure
	f.Scenario, f.Seed, f.TracePath, f.Replay, f.Message = res.Scenario, res.Scenario.Seed, path, c.replayCommand(name, path), msg
	f.Clients = f.Violations[0].Clients
	f.Outcome = res.Outcome
	return found{msg: msg, failure: f}
}

func check(t TB, cfg Config) found {
	t.Helper()
	c, err := cfg.prepare()
	if err != nil {
		return fail(err.Error())
	}
	if c.bridged {
		if err := c.bubbleT(testingT(t)); err != nil {
			return fail(err.Error())
		}
	}
	if *replayPath != "" {
		return c.replayFile(t, *replayPath)
	}
	if r := c.regressions(t); r.msg != "" {
		return r
	}
	if msg := c.probeDeterminism(); msg != "" {
		return fail(msg)
	}
	s := &search{c: c, defer_: true, budget: c.Checks}
	rounds := 1
	if c.Checks > 0 {
		if testing.Short() {
			s.budget = max(1, c.Checks/5)
		}
		per := rapidChecks()
		rounds = (s.budget + per - 1) / per
	}
	var tb *capture
	for range rounds {
		tb = &capture{TB: t}
		rapid.Check(tb, s.property)
		if tb.Failed() {
			break
		}
	}
	if !tb.Failed() {
		unknown := ""
		if s.unknown > 0 {
			unknown = fmt.Sprintf(" (%d inconclusive: the checker ran out of time)", s.unknown)
		}
		held := fmt.Sprintf("%s held in %d scenarios of %s / %s with faults %v%s",
			c.Property, s.runs, c.Protocol, c.Workload, c.Faults, unknown)
		t.Logf("locktest: %s", held)
		return found{held: held}
	}
	if s.last == nil {
		// Not a violation: a scenario that could not run (a panic in the
		// lock under test lands here), shrunk like one; or a panic
		// outside the sim, which rapid's own report shows.
		if s.firstErr == nil {
			return fail("locktest: " + strings.Join(tb.errors, "\n"))
		}
		msg := s.lastMsg
		if r := tb.reproduce(); r != "" {
			msg += "\n  rapid's search, to run it again: " + r
		}
		return fail(msg)
	}
	shrunk, polished := c.polish(s.last, s.want)
	if msg := c.rerun(shrunk); msg != "" {
		return fail(msg)
	}
	path, err := c.write(t.Name(), shrunk)
	if err != nil {
		return fail(describe(shrunk) + "\n  trace: not written: " + err.Error())
	}
	note := fmt.Sprintf("\n  shrunk: %s -> %s by rapid (found after %d scenarios, %d shrink runs) -> %s by locktest (%d runs)",
		size(s.first), size(s.last), s.found, s.runs-s.found, size(shrunk), polished)
	if r := tb.reproduce(); r != "" {
		note += "\n  rapid's search, to run it again: " + r
	}
	return c.violation(t.Name(), shrunk, path, note)
}

// size summarises how big a failing case is.
func size(res *Result) string {
	sc := res.Scenario
	return fmt.Sprintf("%s x %s x %s, %s", plural(sc.Clients, "client"), plural(sc.Threads, "thread"),
		plural(sc.Ops, "op"), plural(len(eventsOf(sc.Faults)), "fault event"))
}

// rapidChecks is how many runs one rapid.Check makes (-rapid.checks; a
// fifth under -short).
func rapidChecks() int {
	n := 100
	if f := flag.Lookup("rapid.checks"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if v, ok := g.Get().(int); ok && v > 0 {
				n = v
			}
		}
	}
	if testing.Short() {
		n /= 5
	}
	return max(1, n)
}

// capture is the TB Check hands to rapid: it passes logs through until
// rapid reports a failure, and records the failure instead of failing
// the test, so that Check can write the shrunk case's trace and fail
// once, with the whole story.
type capture struct {
	TB
	mu     sync.Mutex
	failed bool
	errors []string
}

func (c *capture) fail(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failed = true
	if msg != "" {
		c.errors = append(c.errors, msg)
	}
}

func (c *capture) Logf(format string, args ...any) {
	if strings.HasPrefix(format, rapidPassed) {
		return // Check's own line counts the scenarios (see rapidPassed)
	}
	if !c.Failed() {
		c.TB.Logf(format, args...)
	}
}

// rapidPassed starts the line rapid logs after a passing rapid.Check:
// "[rapid] OK, passed 100 tests". Its count is -rapid.checks, not
// Config.Checks: past the budget, rapid's cases pass untried, and a
// budget above -rapid.checks takes several rapid.Checks. Check drops the
// line: its own "held in N scenarios" says how many ran.
const rapidPassed = "[rapid] OK, passed "

func (c *capture) Log(args ...any) {
	if !c.Failed() {
		c.TB.Log(args...)
	}
}

func (c *capture) Errorf(format string, args ...any) { c.fail(fmt.Sprintf(format, args...)) }
func (c *capture) Error(args ...any)                 { c.fail(fmt.Sprint(args...)) }
func (c *capture) Fatalf(format string, args ...any) { c.fail(fmt.Sprintf(format, args...)) }
func (c *capture) Fatal(args ...any)                 { c.fail(fmt.Sprint(args...)) }
func (c *capture) FailNow()                          { c.fail("") }
func (c *capture) Fail()                             { c.fail("") }

func (c *capture) Failed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed
}

// reproduce returns rapid's own reproduction flags, if it printed them.
// A fail file rapid has just written (under testdata/rapid) is removed
// and its flag replaced by rapid's seed: the saved failure of a Check is
// the trace under Config.TraceDir, alone (see docs/go-api.md).
func (c *capture) reproduce() string {
	for _, e := range c.errors {
		if _, after, ok := strings.Cut(e, "To reproduce, specify "); ok {
			line, _, _ := strings.Cut(after, "\n")
			return dropFailFile(line)
		}
	}
	return ""
}

// rapidFlags matches rapid's reproduction flags after it wrote a fail
// file: -run="X" -rapid.failfile="F" (or -rapid.seed=N).
var rapidFlags = regexp.MustCompile(`^(-run=".*") -rapid\.failfile="(.*)" \(or (-rapid\.seed=\d+)\)$`)

// dropFailFile removes the fail file rapid wrote and returns the flags
// that rerun its search by seed.
func dropFailFile(line string) string {
	m := rapidFlags.FindStringSubmatch(line)
	if m == nil {
		return line
	}
	if path, err := strconv.Unquote(`"` + m[2] + `"`); err == nil && strings.HasSuffix(path, ".fail") {
		os.Remove(path)
		// Its directories too, when empty, up to testdata.
		for dir := filepath.Dir(path); filepath.Base(dir) != "testdata" && dir != "." && dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
			if os.Remove(dir) != nil {
				break
			}
		}
	}
	return m[1] + " " + m[3]
}

// regressions re-runs the failing traces earlier runs of this test
// saved, and returns the message of the first one that still fails.
func (c *config) regressions(t TB) found {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(c.TraceDir, safeName(t.Name())+"-*.json"))
	sort.Strings(paths)
	for _, path := range paths {
		f, err := traces.Read(path)
		if err != nil {
			return fail(fmt.Sprintf("locktest: saved trace %s: %v (delete it if it is stale)", path, err))
		}
		if f.Scenario.Protocol != c.Protocol {
			t.Logf("locktest: %s is a trace of %s, not %s: skipped", path, f.Scenario.Protocol, c.Protocol)
			continue
		}
		res, err := c.evaluate(f.Scenario, "")
		if err != nil {
			return fail(fmt.Sprintf("locktest: saved trace %s: %v", path, err))
		}
		if res.Failure == nil {
			t.Logf("locktest: %s: the property now holds in this saved counterexample (delete it, or keep it as a regression case)", path)
			continue
		}
		if !traces.Replays(f, res.Outcome.File) {
			// Still failing, but the run changed: save the new trace.
			if p, err := c.write(t.Name(), res); err == nil {
				path = p
			}
		}
		return c.violation(t.Name(), res, path, "\n  (a counterexample saved by an earlier run still fails)")
	}
	return found{}
}

// replayFile replays the trace at path for -locktest.replay.
func (c *config) replayFile(t TB, path string) found {
	t.Helper()
	f, err := traces.Read(path)
	if err != nil {
		return fail("locktest: -" + ReplayFlag + ": " + err.Error())
	}
	if f.Scenario.Protocol != c.Protocol {
		t.Skipf("locktest: -%s=%s replays protocol %s, not %s", ReplayFlag, path, f.Scenario.Protocol, c.Protocol)
		return found{}
	}
	res, err := c.evaluate(f.Scenario, "")
	if err != nil {
		return fail("locktest: -" + ReplayFlag + ": " + err.Error())
	}
	got := res.Outcome.File.TraceSHA256
	mismatch := ""
	if !traces.Replays(f, res.Outcome.File) {
		mismatch = fmt.Sprintf("\n  replay hash mismatch: recorded %s, replayed %s (the lock, its workload or locksim changed since the trace was written)",
			f.TraceSHA256[:16], got[:16])
	}
	if res.Failure == nil {
		if mismatch != "" {
			return fail("locktest: " + path + ": the property holds in the replay" + mismatch)
		}
		held := fmt.Sprintf("replayed %s (trace %s): %s holds, verdict %s", path, got[:16], c.Property, res.Outcome.File.Report.Verdict)
		t.Logf("locktest: %s", held)
		return found{held: held}
	}
	switch {
	case mismatch != "":
	case got != f.TraceSHA256:
		mismatch = "\n  replayed: the same events (the file predates fault ids; sha256 now " + got[:16] + ")"
	default:
		mismatch = "\n  replayed: the same trace, byte for byte (sha256 " + got[:16] + ")"
	}
	return c.violation(t.Name(), res, path, mismatch)
}

// Replay re-runs the scenario of the trace file at path and checks that
// the run is the same, byte for byte: it returns the new outcome, and an
// error if the file cannot be read or the trace's hash differs. The
// protocol must be registered in this binary (built in, or by
// protocols.Register).
func Replay(path string) (*traces.Outcome, error) {
	f, err := traces.Read(path)
	if err != nil {
		return nil, err
	}
	o, err := traces.Execute(f.Scenario)
	if err != nil {
		return nil, err
	}
	if !traces.Replays(f, o.File) {
		return o, fmt.Errorf("replay of %s: trace hash mismatch: recorded %s, replayed %s", path, f.TraceSHA256, o.File.TraceSHA256)
	}
	if o.File.Report.Verdict != f.Report.Verdict {
		return o, fmt.Errorf("replay of %s: verdict %s, recorded %s", path, o.File.Report.Verdict, f.Report.Verdict)
	}
	return o, nil
}

// Fuzz returns a fuzz target over cfg's scenarios for testing.F.Fuzz:
// each input is decoded into a scenario (Decode), run and judged; a
// failure writes its trace under cfg.TraceDir and fails with the same
// message as Check. It panics if cfg is not valid.
//
//	func FuzzMyLock(f *testing.F) {
//		for _, seed := range locktest.FuzzSeeds(8) {
//			f.Add(seed)
//		}
//		f.Fuzz(locktest.Fuzz(cfg))
//	}
func Fuzz(cfg Config) func(t *testing.T, data []byte) {
	c := cfg.mustPrepare()
	return func(t *testing.T, data []byte) {
		t.Helper()
		if c.bridged {
			if err := c.bubbleT(t); err != nil {
				t.Fatal(err)
			}
		}
		s := &search{c: c}
		if msg := s.check(t.Name(), c.draw(&byteSource{b: data})); msg != "" {
			t.Fatalf("%s", msg)
		}
	}
}

// FuzzSeeds returns n seed inputs for a fuzz target: the empty input
// (the simplest scenario) and n-1 fixed pseudo-random inputs long enough
// to draw every choice of a scenario with a few faults.
func FuzzSeeds(n int) [][]byte {
	out := [][]byte{{}}
	x := uint64(0x9e3779b97f4a7c15)
	for i := 1; i < n; i++ {
		b := make([]byte, 96)
		for j := range b {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			b[j] = byte(x)
		}
		out = append(out, b)
	}
	if n <= 0 {
		return nil
	}
	return out
}
