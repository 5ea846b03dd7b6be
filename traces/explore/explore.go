package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/luafast"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

// ExploreConfig is one exploration: the same scenario over many seeds.
type ExploreConfig struct {
	Base       protocols.Scenario // everything but the seed
	Runs       int
	SeedStart  uint64
	Workers    int    // 0: all cores
	Shard      int    // 1-based shard index; 0: no sharding
	Shards     int    // number of shards
	UntilFirst bool   // stop at the first violation
	Out        string // directory for the first trace of each cause ("" = none)
}

// CauseCount is how often a cause was seen and its lowest seed.
type CauseCount struct {
	Property  string `json:"property"`
	Cause     string `json:"cause"`
	Runs      int    `json:"runs"`
	FirstSeed uint64 `json:"first_seed"`
	Trace     string `json:"trace,omitempty"`
	Replay    string `json:"replay,omitempty"` // the command that reruns FirstSeed
}

// WhyCount is how many runs were not judged for one reason.
type WhyCount struct {
	Why  string `json:"why"`
	Runs int    `json:"runs"`
}

// Summary aggregates an exploration. It holds counters only, so memory
// stays flat however many runs there are.
type Summary struct {
	Protocol  string             `json:"protocol"`
	Workload  string             `json:"workload"`
	Faults    []string           `json:"faults"`
	Topology  string             `json:"topology"`
	Scenario  protocols.Scenario `json:"scenario"` // every run's scenario but its seed, as given
	SeedStart uint64             `json:"seed_start"`
	Shard     string             `json:"shard,omitempty"`
	Runs      int                `json:"runs"`
	Violating int                `json:"violating_runs"`
	// The violating runs, each in one bucket: DataLost counts those whose
	// every violation is a write the data store lost (a crash or a
	// promotion undid it, which no lock could prevent); LockViolated the
	// others, where the lock failed: a violation the store's loss does
	// not explain (two holders at once, a lease renewed or released by
	// another, harm to the data, a client left waiting).
	LockViolated int `json:"lock_violated_runs"`
	DataLost     int `json:"data_lost_runs"`
	// Unknown counts the runs not judged: the checker's verdict was
	// unknown (a run budget stopped the run, or the checker ran out of
	// search steps) and ground truth showed no harm. The rates are over
	// the other runs; UnknownWhy says why, a count per reason.
	Unknown    int          `json:"unknown_runs"`
	UnknownWhy []WhyCount   `json:"unknown_why,omitempty"`
	Errors     int          `json:"errors"`
	FirstError string       `json:"first_error,omitempty"`
	Causes     []CauseCount `json:"causes"`
	// The judged counts behind Verdict, counted as matrix and verify
	// count them: Judge, run by run (a fenced lock's overlaps alone are
	// not unsafe, only damage to its data is; a write the data store lost
	// with a node is data loss, not the lock's failure). Violating above
	// counts the checker's reports as they are.
	UnsafeRuns    int     `json:"unsafe_runs"`
	DataLossRuns  int     `json:"data_loss_runs"`
	FirstUnsafe   *uint64 `json:"first_unsafe_seed,omitempty"`
	UnsafeCause   string  `json:"unsafe_cause,omitempty"`
	UnsafeDetail  string  `json:"unsafe_detail,omitempty"`
	UnsafeTrace   string  `json:"unsafe_trace_sha256,omitempty"` // the first unsafe seed's trace hash
	FirstDataLoss *uint64 `json:"first_data_loss_seed,omitempty"`
	DataLossCause string  `json:"data_loss_cause,omitempty"`
	// NA lists the asked fault kinds that mean nothing on this topology
	// (CellTopology), left out of the runs; with none left, no seed runs.
	NA []string `json:"na,omitempty"`
	// Verdict is the exploration's verdict in the words matrix and
	// verify use: unsafe k of n (rate, interval, first seed), or not
	// found with the rate it rules out.
	Verdict Verdict `json:"verdict"`
	// Coverage counts the runs that reached each dangerous state, so that
	// "0 violations" comes with how often the danger was there.
	Coverage []StateCount `json:"coverage"`
	// Damage sums the runs' damage to the protected data; Plots bucket
	// the runs by each drawn fault parameter (the report's charts).
	Damage      DamageTotals `json:"damage"`
	Plots       []Plot       `json:"plots"`
	SimMs       float64      `json:"sim_ms"`
	WallMs      float64      `json:"wall_ms"`
	RunsPerSec  float64      `json:"runs_per_sec"`
	SimPerWall  float64      `json:"sim_per_wall"`
	Interrupted bool         `json:"interrupted,omitempty"`
}

// seed is the i-th seed of cfg.
func (cfg ExploreConfig) seed(i int) uint64 {
	if cfg.Shards > 1 {
		return cfg.SeedStart + uint64(i*cfg.Shards+cfg.Shard-1)
	}
	return cfg.SeedStart + uint64(i)
}

// runResult is what one explore run leaves for the summary: counters,
// and the trace file only when it may be saved.
type runResult struct {
	seed     uint64
	err      error
	simNs    int64
	verdict  string
	coverage checker.Coverage
	report   checker.Report
	params   []int // the run's bucket in each plot (runParams)
	judged   judgement
	file     *traces.File // kept when the run violated or was judged unsafe
}

// Explore runs cfg's seeds on Workers goroutines and aggregates the
// results in seed order. progress, if not nil, is called after each run
// with the number done. Cancelling ctx stops it early with a partial
// summary of the seeds delivered so far (a prefix).
func Explore(ctx context.Context, cfg ExploreConfig, progress func(done int, s *Summary)) (*Summary, error) {
	base, err := cfg.check()
	if err != nil {
		return nil, err
	}
	p, err := base.LookupProtocol()
	if err != nil {
		return nil, err
	}
	// A kind that means nothing on the run's topology is n/a here as in
	// matrix and verify: left out, and with none left, nothing runs.
	keep, na := naKinds(p, base.Topology, cfg.Base.FaultKinds)
	if len(na) > 0 {
		asked := cfg.Base.FaultKinds
		cfg.Base.FaultKinds = keep
		if len(keep) == 0 {
			s := &Summary{Protocol: base.Protocol, Workload: base.Workload, Faults: asked, Topology: base.Topology,
				Scenario: cfg.Base, SeedStart: cfg.SeedStart, NA: na, Causes: []CauseCount{}}
			s.Verdict = notApplicable(strings.Join(na, "; "))
			return s, nil
		}
		if base, err = cfg.check(); err != nil {
			return nil, err
		}
	}
	fenced := protocols.IsFenced(p)
	// The kinds the user allowed: a swarm's normalized base holds one
	// seed's draw of them.
	kinds := base.FaultKinds
	if cfg.Base.Swarm && len(cfg.Base.FaultKinds) > 0 {
		kinds = cfg.Base.FaultKinds
	}
	s := &Summary{Protocol: base.Protocol, Workload: base.Workload, Faults: kinds, Topology: base.Topology,
		Scenario: cfg.Base, SeedStart: cfg.SeedStart, NA: na}
	if cfg.Base.Swarm && len(cfg.Base.FaultKinds) > 0 {
		// A swarm draws a subset per seed; the base's is seed 0's.
		s.Faults = cfg.Base.FaultKinds
	}
	if cfg.Shards > 1 {
		s.Shard = fmt.Sprintf("%d/%d", cfg.Shard, cfg.Shards)
	}
	causes := map[[2]string]*CauseCount{}
	var firstErrSeed uint64
	start := time.Now()
	worlds := &sim.Pool{} // Redis stores and coroutines the runs pass on
	defer worlds.Close()
	interrupted, err := pool[runResult]{
		Workers: cfg.Workers,
		Jobs:    cfg.Runs,
		Run:     func(i int) runResult { return cfg.runOne(cfg.seed(i), fenced, worlds) },
		Deliver: func(_ int, r runResult) (bool, error) {
			var unfinished *luafast.UnfinishedError
			if errors.As(r.err, &unfinished) {
				// Bad input, as a script that does not compile: every
				// later run may hang on it the same way.
				return false, fmt.Errorf("seed %d: %w", r.seed, r.err)
			}
			s.Runs++
			if r.err != nil {
				s.Errors++
				if s.FirstError == "" || r.seed < firstErrSeed {
					s.FirstError, firstErrSeed = fmt.Sprintf("seed %d: %v", r.seed, r.err), r.seed
				}
			} else if err := s.add(causes, r, cfg.Out); err != nil {
				return false, err
			}
			if progress != nil {
				progress(s.Runs, s)
			}
			return cfg.UntilFirst && r.judged.Unsafe, nil
		},
	}.run(ctx)
	if err != nil {
		return nil, err
	}
	s.finish(time.Since(start), causes)
	s.Interrupted = interrupted
	if cfg.Out != "" {
		b, _ := json.MarshalIndent(s, "", "  ")
		if err := traces.WriteAtomic(filepath.Join(cfg.Out, SummaryFile), append(b, '\n')); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// check validates cfg and returns its normalized base scenario.
func (cfg ExploreConfig) check() (protocols.Scenario, error) {
	base, err := cfg.Base.Normalize()
	if err != nil {
		return base, err
	}
	if cfg.Runs < 1 {
		return base, fmt.Errorf("runs must be at least 1")
	}
	if cfg.Shards > 1 && (cfg.Shard < 1 || cfg.Shard > cfg.Shards) {
		return base, fmt.Errorf("shard must be K/N with 1 <= K <= N")
	}
	if cfg.Out != "" {
		if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
			return base, fmt.Errorf("--out: %v", err)
		}
	}
	return base, nil
}

// runOne runs one seed of cfg on a worker, its world built from worlds,
// and judges it.
func (cfg ExploreConfig) runOne(seed uint64, fenced bool, worlds *sim.Pool) runResult {
	sc := cfg.Base
	sc.Seed = seed
	o, err := traces.EvaluatePooled(sc, worlds)
	if err != nil {
		return runResult{seed: seed, err: err}
	}
	f := o.File
	r := runResult{seed: seed, simNs: f.Trace.Stats.SimNs, verdict: f.Report.Verdict, coverage: o.Result.Coverage,
		report: f.Report, params: runParams(f.Scenario), judged: judge(f.Report, f.Trace, fenced)}
	if r.verdict == checker.VerdictViolation || r.judged.Unsafe {
		r.file = f
	}
	return r
}

// add folds one run into the summary.
func (s *Summary) add(causes map[[2]string]*CauseCount, r runResult, out string) error {
	s.SimMs += float64(r.simNs) / 1e6
	s.Coverage = addCoverage(s.Coverage, r.coverage)
	s.Damage.add(r.report)
	s.judge(r)
	params := r.params
	if why := r.judged.notJudged(r.report); why != "" {
		s.Unknown++
		s.UnknownWhy = addWhy(s.UnknownWhy, why, 1)
		params = nil // the plots' rates are over judged runs
	}
	s.Plots = addPlots(s.Plots, params, r.verdict == checker.VerdictViolation)
	if r.verdict == checker.VerdictViolation {
		s.Violating++
		s.split(r.file)
		return s.count(causes, r.seed, r.file, out)
	}
	return nil
}

// unknownWhy says why a run with an unknown verdict was not judged: which
// run budget stopped it (as `locksim run` names it), or that the checker
// could not decide.
func unknownWhy(r checker.Report) string {
	budget := strings.TrimPrefix(r.Budget, "budget exceeded: ")
	name, _, _ := strings.Cut(budget, ":")
	switch {
	case budget == "":
	case strings.HasPrefix(budget, trace.HorizonBudget):
		return "stopped at the horizon, clients still working"
	case name == "events":
		return "stopped by the event budget (raise it with --max-events)"
	default:
		return "stopped by the " + name + " budget"
	}
	for _, c := range r.Checked {
		if c.Result == checker.VerdictUnknown && strings.Contains(c.Unknown, "search steps") {
			return "the checker ran out of search steps"
		}
	}
	return "the checker could not decide"
}

// addWhy adds n runs to reason why, keeping the reasons in order (the
// same whatever order shards are merged in).
func addWhy(ws []WhyCount, why string, n int) []WhyCount {
	for i := range ws {
		if ws[i].Why == why {
			ws[i].Runs += n
			return ws
		}
	}
	ws = append(ws, WhyCount{Why: why, Runs: n})
	sort.Slice(ws, func(i, j int) bool { return ws[i].Why < ws[j].Why })
	return ws
}

// whyText writes the reasons as one clause: "17 stopped by the event
// budget (raise it with --max-events); 2 the checker ran out of search
// steps".
func whyText(ws []WhyCount) string {
	var parts []string
	for _, w := range ws {
		parts = append(parts, fmt.Sprintf("%s %s", Thousands(w.Runs), w.Why))
	}
	return strings.Join(parts, "; ")
}

// judge counts one run's judgement; runs arrive in seed order, so the
// first of each kind is the lowest seed.
func (s *Summary) judge(r runResult) {
	switch {
	case r.judged.Unsafe:
		s.UnsafeRuns++
		if s.FirstUnsafe == nil {
			seed := r.seed
			s.FirstUnsafe, s.UnsafeCause, s.UnsafeDetail = &seed, r.judged.Cause, r.judged.Detail
			s.UnsafeTrace = traces.Hash(r.file)
		}
	case r.judged.DataLoss:
		s.DataLossRuns++
		if s.FirstDataLoss == nil {
			seed := r.seed
			s.FirstDataLoss, s.DataLossCause = &seed, r.judged.Cause
		}
	}
}

// verdict is the summary's verdict from its judged counts.
func (s *Summary) verdict() Verdict {
	switch {
	case s.Runs == 0 && len(s.NA) > 0:
		return notApplicable(strings.Join(s.NA, "; "))
	case s.Errors > 0 && s.UnsafeRuns == 0:
		return failed("sampled", s.FirstError)
	}
	return sampled(s.Judged(), s.UnsafeRuns, s.DataLossRuns, s.Unknown, whyText(s.UnknownWhy), s.FirstUnsafe)
}

// Judged is how many runs were judged: those every rate is over.
func (s *Summary) Judged() int { return s.Runs - s.Errors - s.Unknown }

// Share is n of the judged runs as the verdict writes a rate ("1.5%"),
// or "" when no run was judged and no rate is claimed.
func (s *Summary) Share(n int) string {
	if s.Judged() <= 0 {
		return ""
	}
	return percent(float64(n) / float64(s.Judged()))
}

// finish computes the rates and lists the causes in order.
func (s *Summary) finish(wall time.Duration, causes map[[2]string]*CauseCount) {
	s.Verdict = s.verdict()
	s.WallMs = float64(wall.Microseconds()) / 1e3
	if wall > 0 {
		s.RunsPerSec = float64(s.Runs) / wall.Seconds()
		s.SimPerWall = s.SimMs / s.WallMs
	}
	s.Causes = listCauses(s.Scenario, causes)
}

// listCauses lists the causes in order, each with the command that
// replays its first seed.
func listCauses(base protocols.Scenario, causes map[[2]string]*CauseCount) []CauseCount {
	out := []CauseCount{}
	for _, c := range causes {
		sc := base
		sc.Seed = c.FirstSeed
		c.Replay = ReplayCommand(sc, c.Trace)
		out = append(out, *c)
	}
	sortCauses(out)
	return out
}

// split counts a violating run as a failure of the lock itself, or, when
// each of its violations is a write the data store lost, as data loss:
// each violating run in exactly one of the two.
func (s *Summary) split(f *traces.File) {
	for _, v := range f.Report.Violations {
		if !lostByStore(v, f.Trace) {
			s.LockViolated++
			return
		}
	}
	s.DataLost++
}

// lostByStore reports whether a violation is a write the data store lost
// with a node, as judge sees it: not two holders at once, but a cause or
// a key the checker explains by the loss.
func lostByStore(v checker.Violation, tr *trace.Trace) bool {
	if v.Property == checker.PropMutex {
		return false
	}
	return v.Cause == checker.CauseLostAfterFailover || v.Cause == checker.CauseRestart || dataLoss(v, tr)
}

// count records each distinct cause of a violating run, keeping the trace
// of the lowest seed per cause in out.
func (s *Summary) count(causes map[[2]string]*CauseCount, seed uint64, f *traces.File, out string) error {
	seen := map[[2]string]bool{}
	for _, v := range f.Report.Violations {
		k := [2]string{v.Property, v.Cause}
		if seen[k] {
			continue
		}
		seen[k] = true
		c := causes[k]
		if c == nil {
			c = &CauseCount{Property: v.Property, Cause: v.Cause, FirstSeed: seed}
			causes[k] = c
		}
		c.Runs++
		if seed < c.FirstSeed || c.Runs == 1 {
			c.FirstSeed = seed
			if out != "" {
				c.Trace = causeFile(out, v.Property, v.Cause, ".json")
				if f.TraceSHA256 == "" {
					f.TraceSHA256 = traces.Hash(f)
				}
				if err := traces.Write(c.Trace, f); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func sortCauses(cs []CauseCount) {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].Property != cs[j].Property {
			return cs[i].Property < cs[j].Property
		}
		return cs[i].Cause < cs[j].Cause
	})
}

// merge combines shard summaries of the same exploration.
func merge(parts []*Summary) (*Summary, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("nothing to merge")
	}
	m := &Summary{Protocol: parts[0].Protocol, Workload: parts[0].Workload, Faults: parts[0].Faults,
		Topology: parts[0].Topology, Scenario: parts[0].Scenario, SeedStart: parts[0].SeedStart}
	want, _ := json.Marshal(m.Scenario)
	causes := map[[2]string]*CauseCount{}
	var wall float64
	for _, p := range parts {
		if got, _ := json.Marshal(p.Scenario); !bytes.Equal(got, want) || p.Protocol != m.Protocol ||
			p.Workload != m.Workload || fmt.Sprint(p.Faults) != fmt.Sprint(m.Faults) || p.Topology != m.Topology {
			return nil, fmt.Errorf("summaries of different explorations (%s/%s vs %s/%s)", p.Protocol, p.Workload, m.Protocol, m.Workload)
		}
		m.Runs += p.Runs
		m.Violating += p.Violating
		m.LockViolated += p.LockViolated
		m.DataLost += p.DataLost
		m.Unknown += p.Unknown
		told := 0
		for _, w := range p.UnknownWhy {
			m.UnknownWhy = addWhy(m.UnknownWhy, w.Why, w.Runs)
			told += w.Runs
		}
		if n := p.Unknown - told; n > 0 { // a summary from before the reasons were kept
			m.UnknownWhy = addWhy(m.UnknownWhy, "reason not recorded in the shard's summary", n)
		}
		m.Errors += p.Errors
		m.UnsafeRuns += p.UnsafeRuns
		m.DataLossRuns += p.DataLossRuns
		if p.FirstUnsafe != nil && (m.FirstUnsafe == nil || *p.FirstUnsafe < *m.FirstUnsafe) {
			m.FirstUnsafe, m.UnsafeCause, m.UnsafeDetail, m.UnsafeTrace = p.FirstUnsafe, p.UnsafeCause, p.UnsafeDetail, p.UnsafeTrace
		}
		if p.FirstDataLoss != nil && (m.FirstDataLoss == nil || *p.FirstDataLoss < *m.FirstDataLoss) {
			m.FirstDataLoss, m.DataLossCause = p.FirstDataLoss, p.DataLossCause
		}
		if m.FirstError == "" {
			m.FirstError = p.FirstError
		}
		m.SimMs += p.SimMs
		m.Coverage = mergeCoverage(m.Coverage, p.Coverage)
		if err := m.Damage.merge(p.Damage); err != nil {
			return nil, err
		}
		plots, err := mergePlots(m.Plots, p.Plots)
		if err != nil {
			return nil, err
		}
		m.Plots = plots
		wall = max(wall, p.WallMs) // shards run side by side
		m.Interrupted = m.Interrupted || p.Interrupted
		for _, c := range p.Causes {
			k := [2]string{c.Property, c.Cause}
			if have := causes[k]; have == nil {
				cc := c
				causes[k] = &cc
			} else {
				have.Runs += c.Runs
				if c.FirstSeed < have.FirstSeed {
					have.FirstSeed, have.Trace = c.FirstSeed, c.Trace
				}
			}
		}
	}
	m.WallMs = wall
	if wall > 0 {
		m.RunsPerSec = float64(m.Runs) / (wall / 1e3)
		m.SimPerWall = m.SimMs / wall
	}
	m.Causes = listCauses(m.Scenario, causes)
	m.NA = parts[0].NA
	m.Verdict = m.verdict()
	return m, nil
}

// ReadSummary reads a summary.json written by Explore.
func ReadSummary(path string) (*Summary, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: not an explore summary: %v", path, err)
	}
	if s.Protocol == "" {
		return nil, fmt.Errorf("%s: not an explore summary", path)
	}
	return &s, nil
}
