// Package baseline is the experiment a user would run without locksim:
// the same lock protocol, workload and GC-pause schedule against a real
// redis-server in real time (go-redis clients, each pause a real sleep),
// and the time it takes each side to show the first violation.
//
// Both sides run one protocols.Scenario. For each seed the scenario is
// normalized exactly as the sim does it, so the real side gets the same
// clients, threads, operations, lease, work, think, retry and stagger
// times, and the same explicit fault schedule (GenerateFaults draws it
// from the seed). The real side's own choices (think times, lock tokens)
// come from a math/rand/v2 PCG seeded with the seed; the interleaving
// itself is up to the machine and is not reproducible.
//
// The real side supports what a plain go-redis program can do: the
// single-master protocols setnx-del and setnx-lua-del, the workloads
// unique-name (an in-memory table behind a mutex stands in for the
// database) and stock (goods:001 on the same redis-server, as in the
// sim), and gc-pause faults. It watches for the checker's two properties
// as they happen: mutual exclusion (a thread's acquire returns OK while
// another thread still believes it holds the key: its acquire returned OK
// and it has not started its release) and the resource (a second INSERT
// of a name; two sales from the same stock reading, a lost update).
package baseline

import (
	"fmt"
	"runtime"
	"time"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// MaxWorkers bounds the real trials run side by side: each uses its own
// database of the server, which StartServer creates this many of.
const MaxWorkers = 16

// Scaled returns the experiment both sides run: protocol on workload, 3
// clients of 1 thread doing 4 operations each, with generated gc-pause
// faults, and the timings scaled down so that a real trial lasts seconds
// (the sources use a 60 s or 10 s lease and 5 s of work): a 1 s lease,
// 100 ms of work, up to 50 ms of think time, 50 ms between lock retries.
// The generator draws pauses of 10 ms to 1 s or of lease/2 to 2 leases
// (0.5 to 2 s) while the clients are active.
func Scaled(protocol, workload string) protocols.Scenario {
	return protocols.Scenario{
		Protocol:   protocol,
		Workload:   workload,
		Clients:    3,
		Threads:    1,
		Ops:        4,
		LeaseMs:    1000,
		WorkMs:     100,
		ThinkMs:    50,
		RetryMs:    50,
		FaultKinds: []string{trace.FaultGCPause},
	}
}

// Result is one side's search for the first violation.
type Result struct {
	Side  string `json:"side"` // "real-redis" or "sim"
	Found bool   `json:"found"`
	// Wall is the wall time from the start of the search to the first
	// violation (real side: the moment it happened; sim side: the moment
	// the checked, violating run came back), or the time spent searching
	// when none was found.
	Wall time.Duration `json:"wall_ns"`
	// Runs is how many runs (seeds) had been started when the search
	// stopped, the violating one included.
	Runs      int    `json:"runs"`
	Seed      uint64 `json:"seed"`      // the violating run's seed
	Violation string `json:"violation"` // one line: property, key, clients, time in the run
	// Covered is the experiment time the runs covered: the real trials'
	// durations added up, or the simulated time.
	Covered time.Duration `json:"covered_ns"`
	Workers int           `json:"workers"`
}

func (r *Result) String() string {
	if !r.Found {
		return fmt.Sprintf("%-10s no violation in %d runs, %s of wall time (%s of runs covered)",
			r.Side, r.Runs, round(r.Wall), round(r.Covered))
	}
	return fmt.Sprintf("%-10s first violation after %s of wall time, %d runs (%s of runs covered, %d side by side): seed %d, %s",
		r.Side, round(r.Wall), r.Runs, round(r.Covered), r.Workers, r.Seed, r.Violation)
}

// Ratio is how many times longer the real side took to its first
// violation than the sim. When the real side found none, the ratio is a
// lower bound (its search time); 0 when the sim found none.
func Ratio(real, sim *Result) (ratio float64, lowerBound bool) {
	if sim == nil || real == nil || !sim.Found || sim.Wall <= 0 {
		return 0, false
	}
	return float64(real.Wall) / float64(sim.Wall), !real.Found
}

// Summary renders both sides and their ratio.
func Summary(sc protocols.Scenario, real, sim *Result) string {
	s := fmt.Sprintf("%s / %s, %d clients, gc-pause, lease %d ms, work %d ms (GOMAXPROCS %d)\n  %s\n  %s\n",
		sc.Protocol, sc.Workload, sc.Clients, sc.LeaseMs, sc.WorkMs, runtime.GOMAXPROCS(0), real, sim)
	switch ratio, lower := Ratio(real, sim); {
	case ratio == 0:
		s += "  ratio: undefined (the sim found no violation)\n"
	case lower:
		s += fmt.Sprintf("  ratio real/sim: more than %.0fx (the real side found none)\n", ratio)
	default:
		s += fmt.Sprintf("  ratio real/sim: %.0fx\n", ratio)
	}
	return s
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
