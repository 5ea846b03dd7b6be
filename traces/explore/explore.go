package explore

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
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
}

// Summary aggregates an exploration. It holds counters only, so memory
// stays flat however many runs there are.
type Summary struct {
	Protocol    string       `json:"protocol"`
	Workload    string       `json:"workload"`
	Faults      []string     `json:"faults"`
	Topology    string       `json:"topology"`
	SeedStart   uint64       `json:"seed_start"`
	Shard       string       `json:"shard,omitempty"`
	Runs        int          `json:"runs"`
	Violating   int          `json:"violating_runs"`
	Unknown     int          `json:"unknown_runs"`
	Errors      int          `json:"errors"`
	FirstError  string       `json:"first_error,omitempty"`
	Causes      []CauseCount `json:"causes"`
	SimMs       float64      `json:"sim_ms"`
	WallMs      float64      `json:"wall_ms"`
	RunsPerSec  float64      `json:"runs_per_sec"`
	SimPerWall  float64      `json:"sim_per_wall"`
	Interrupted bool         `json:"interrupted,omitempty"`
}

// Seeds returns the seeds of cfg in order.
func (cfg ExploreConfig) seed(i int) uint64 {
	if cfg.Shards > 1 {
		return cfg.SeedStart + uint64(i*cfg.Shards+cfg.Shard-1)
	}
	return cfg.SeedStart + uint64(i)
}

type exploreResult struct {
	seed    uint64
	outcome *traces.Outcome
	err     error
}

// Explore runs cfg's seeds on Workers goroutines and aggregates the
// results. progress, if not nil, is called after each run with the number
// done. Cancelling ctx stops it early with a partial summary.
func Explore(ctx context.Context, cfg ExploreConfig, progress func(done int, s *Summary)) (*Summary, error) {
	base, err := cfg.Base.Normalize()
	if err != nil {
		return nil, err
	}
	if cfg.Runs < 1 {
		return nil, fmt.Errorf("runs must be at least 1")
	}
	if cfg.Shards > 1 && (cfg.Shard < 1 || cfg.Shard > cfg.Shards) {
		return nil, fmt.Errorf("shard must be K/N with 1 <= K <= N")
	}
	if cfg.Out != "" {
		if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
			return nil, fmt.Errorf("--out: %v", err)
		}
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	s := &Summary{Protocol: base.Protocol, Workload: base.Workload, Faults: base.FaultKinds, Topology: base.Topology,
		SeedStart: cfg.SeedStart}
	if cfg.Shards > 1 {
		s.Shard = fmt.Sprintf("%d/%d", cfg.Shard, cfg.Shards)
	}
	jobs := make(chan int)
	results := make(chan exploreResult, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				sc := cfg.Base
				sc.Seed = cfg.seed(i)
				o, err := traces.Evaluate(sc)
				results <- exploreResult{seed: sc.Seed, outcome: o, err: err}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := 0; i < cfg.Runs; i++ {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()

	start := time.Now()
	causes := map[[2]string]*CauseCount{}
	var firstErrSeed uint64
	for r := range results {
		s.Runs++
		switch {
		case r.err != nil:
			s.Errors++
			if s.FirstError == "" || r.seed < firstErrSeed {
				s.FirstError, firstErrSeed = fmt.Sprintf("seed %d: %v", r.seed, r.err), r.seed
			}
		default:
			f := r.outcome.File
			s.SimMs += float64(f.Trace.Stats.SimNs) / 1e6
			switch f.Report.Verdict {
			case checker.VerdictViolation:
				s.Violating++
				if err := s.count(causes, r.seed, f, cfg.Out); err != nil {
					return nil, err
				}
				if cfg.UntilFirst {
					cancel()
				}
			case checker.VerdictUnknown:
				s.Unknown++
			}
		}
		if progress != nil {
			progress(s.Runs, s)
		}
	}
	wall := time.Since(start)
	s.WallMs = float64(wall.Microseconds()) / 1e3
	if wall > 0 {
		s.RunsPerSec = float64(s.Runs) / wall.Seconds()
		s.SimPerWall = s.SimMs / s.WallMs
	}
	s.Interrupted = ctx.Err() != nil && !cfg.UntilFirst && s.Runs < cfg.Runs
	for _, c := range causes {
		s.Causes = append(s.Causes, *c)
	}
	sortCauses(s.Causes)
	if s.Causes == nil {
		s.Causes = []CauseCount{}
	}
	if cfg.Out != "" {
		b, _ := json.MarshalIndent(s, "", "  ")
		if err := traces.WriteAtomic(filepath.Join(cfg.Out, "summary.json"), append(b, '\n')); err != nil {
			return nil, err
		}
	}
	return s, nil
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
				c.Trace = filepath.Join(out, v.Property+"-"+v.Cause+".json")
				if f.TraceSHA256 == "" {
					f.TraceSHA256 = f.Trace.Hash()
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

// Merge combines shard summaries of the same exploration.
func Merge(parts []*Summary) (*Summary, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("nothing to merge")
	}
	m := &Summary{Protocol: parts[0].Protocol, Workload: parts[0].Workload, Faults: parts[0].Faults,
		Topology: parts[0].Topology, SeedStart: parts[0].SeedStart}
	causes := map[[2]string]*CauseCount{}
	var wall float64
	for _, p := range parts {
		if p.Protocol != m.Protocol || p.Workload != m.Workload || fmt.Sprint(p.Faults) != fmt.Sprint(m.Faults) || p.Topology != m.Topology {
			return nil, fmt.Errorf("summaries of different explorations (%s/%s vs %s/%s)", p.Protocol, p.Workload, m.Protocol, m.Workload)
		}
		m.Runs += p.Runs
		m.Violating += p.Violating
		m.Unknown += p.Unknown
		m.Errors += p.Errors
		if m.FirstError == "" {
			m.FirstError = p.FirstError
		}
		m.SimMs += p.SimMs
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
	for _, c := range causes {
		m.Causes = append(m.Causes, *c)
	}
	sortCauses(m.Causes)
	if m.Causes == nil {
		m.Causes = []CauseCount{}
	}
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
