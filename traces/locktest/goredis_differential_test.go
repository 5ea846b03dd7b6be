package locktest

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

// TestGoRedisDifferential compares the real libraries, run through the
// bridge, with their re-implementations in the catalog: the share of
// seeds whose run breaks mutual exclusion, per fault kind, over the same
// scenarios (a clock fault the generator aims at a client is refused by
// the bridge: that seed is left out on both sides). It prints the table of BENCHMARKS.md; it runs only with
// LOCKSIM_DIFFERENTIAL=<seeds> (LOCKSIM_DIFFERENTIAL_ONLY=<library>
// for one pair, LOCKSIM_DIFFERENTIAL_KINDS=<kind,kind> for some kinds).
func TestGoRedisDifferential(t *testing.T) {
	seeds, _ := strconv.Atoi(os.Getenv("LOCKSIM_DIFFERENTIAL"))
	if seeds <= 0 {
		t.Skip("set LOCKSIM_DIFFERENTIAL=<seeds> to run")
	}
	pairs := []struct {
		real  *GoRedis
		reimp string
		kinds []string
	}{
		{redsyncGoRedis, "redlock", []string{"none", trace.FaultGCPause, trace.FaultSlowWork, trace.FaultPartition,
			trace.FaultReplyLoss, trace.FaultNodeRestart, trace.FaultClientCrash, trace.FaultClockJump, trace.FaultClockDrift}},
		{redislockGoRedis, "redislock-go", []string{"none", trace.FaultGCPause, trace.FaultSlowWork, trace.FaultPartition,
			trace.FaultReplyLoss, trace.FaultNodeRestart, trace.FaultClientCrash, trace.FaultClockJump, trace.FaultFailover}},
	}
	fmt.Printf("| fault kind | library | re-implementation | violating (library) | violating (re-impl.) | seeds compared |\n| --- | --- | --- | --- | --- | --- |\n")
	only := os.Getenv("LOCKSIM_DIFFERENTIAL_ONLY")
	for _, p := range pairs {
		if only != "" && only != p.real.Name {
			continue
		}
		for _, kind := range p.kinds {
			if k := os.Getenv("LOCKSIM_DIFFERENTIAL_KINDS"); k != "" && !slices.Contains(strings.Split(k, ","), kind) {
				continue
			}
			var bad [2]int
			refused := 0
			for seed := range seeds {
				sc := protocols.Scenario{Seed: uint64(seed), Clients: 3, Ops: 2, LeaseMs: p.real.Lease.Milliseconds(), FaultKinds: []string{kind}}
				if kind == trace.FaultFailover {
					sc.Topology = protocols.TopoReplicated
				}
				sc.Protocol = p.real.Name
				res, err := EvaluateT(t, Config{GoRedis: p.real}, sc)
				if err != nil {
					refused++ // a clock fault aimed at a client: the bridge refuses it
					continue
				}
				if violates(res.Outcome.File.Report) {
					bad[0]++
				}
				sc.Protocol = p.reimp
				o, err := traces.Execute(sc)
				if err != nil {
					t.Fatalf("%s seed %d: %v", p.reimp, seed, err)
				}
				if violates(o.File.Report) {
					bad[1]++
				}
			}
			run := seeds - refused
			fmt.Printf("| %s | %s | %s | %s | %s | %d of %d |\n", kind, p.real.Name, p.reimp, pct(bad[0], run), pct(bad[1], run), run, seeds)
		}
	}
}

func violates(rep checker.Report) bool {
	for _, v := range rep.Violations {
		if v.Property == checker.PropMutex {
			return true
		}
	}
	return false
}

func pct(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}
