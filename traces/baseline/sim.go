package baseline

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/explore"
)

// SimConfig is the sim's search for the first violation: explore.Explore
// with UntilFirst over seeds SeedStart, ...
type SimConfig struct {
	Base      protocols.Scenario // everything but the seed
	SeedStart uint64
	Runs      int // at most this many seeds
	Workers   int // 0: GOMAXPROCS, as Explore
}

// FirstViolationSim explores cfg.Base over seeds until the first violating
// run. Result.Wall is the wall time Explore took (every run simulated and
// checked); the violating run is then run once more, outside the timing,
// to describe its first violation.
func FirstViolationSim(ctx context.Context, cfg SimConfig) (*Result, error) {
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	start := time.Now()
	s, err := explore.Explore(ctx, explore.ExploreConfig{
		Base: cfg.Base, Runs: cfg.Runs, SeedStart: cfg.SeedStart, Workers: workers, UntilFirst: true,
	}, nil)
	wall := time.Since(start)
	if err != nil {
		return nil, err
	}
	if s.Errors > 0 {
		return nil, errors.New("baseline: sim: " + s.FirstError)
	}
	res := &Result{Side: "sim", Wall: wall, Runs: s.Runs, Workers: workers,
		Covered: time.Duration(s.SimMs * float64(time.Millisecond))}
	if s.Violating == 0 {
		return res, nil
	}
	res.Found = true
	for i, c := range s.Causes {
		if i == 0 || c.FirstSeed < res.Seed {
			res.Seed = c.FirstSeed
		}
	}
	sc := cfg.Base
	sc.Seed = res.Seed
	o, err := traces.Execute(sc)
	if err != nil {
		return nil, err
	}
	if vs := o.File.Report.Violations; len(vs) > 0 {
		v := vs[0]
		clients := fmt.Sprint(v.Clients)
		if len(v.Clients) == 2 {
			clients = v.Clients[0] + " and " + v.Clients[1]
		}
		res.Violation = fmt.Sprintf("%s on %s, %s, at t=%.2f s: %s", v.Property, v.Key, clients, v.AtMs/1000, v.Cause)
		if v.Reason != "" {
			res.Violation += " (" + v.Reason + ")"
		}
	}
	return res, nil
}
