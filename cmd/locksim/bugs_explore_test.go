package main

import (
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/explore"
)

// TestExploreFindsEachPublishedBug: explore, from its defaults, finds
// every published bug of the corpus within the runs its entry states
// (`explore_runs`). Only what the entry names is given: --protocol,
// --faults with the kinds of its fault schedule, --topology when a kind
// needs one, --workload when the entry's is not the default (#3712
// and #2515 need one lock name taken again by the same process: stock;
// #7272 the reproducer's finally-unlock shape), and --liveness for a
// liveness entry (#7272). Found means a run with a violation of the
// entry's pinned property and cause (and reason, when pinned) that, where a
// release fixed the bug, the fixed release does not have on the same
// scenario: a cause that any pause would produce does not count as the
// bug. Under -race only the stated run itself is checked (the runs
// before it are the slow part); .ci/run searches every run.
// LOCKSIM_BUG_RUNS=<n> searches every entry up to n runs and logs where
// each was found, to restate explore_runs.
func TestExploreFindsEachPublishedBug(t *testing.T) {
	limit, _ := strconv.Atoi(os.Getenv("LOCKSIM_BUG_RUNS"))
	for _, ref := range traces.Bugs() {
		t.Run(ref.Name, func(t *testing.T) {
			want := ref.Bug.ExploreRuns
			if want < 1 && limit == 0 {
				t.Fatalf("bug %s states no explore_runs", ref.Bug.ID)
			}
			from, runs := 0, want
			switch {
			case limit > 0:
				runs = limit
			case raceEnabled:
				from = want - 1
			}
			base, first := exploreBase(t, ref)
			for i := from; i < runs; i++ {
				sc := base
				sc.Seed = first + uint64(i)
				if showsBug(t, ref, sc) {
					t.Logf("found at run %d (seed %d): %s", i+1, sc.Seed, strings.Join(exploreArgs(ref), " "))
					return
				}
			}
			t.Fatalf("explore %s found no run with the bug in %d runs", strings.Join(exploreArgs(ref), " "), runs)
		})
	}
}

// exploreArgs are the arguments of `locksim explore` that name ref's bug.
func exploreArgs(ref traces.Reference) []string {
	var kinds []string
	topo := ""
	for _, f := range ref.Scenario.Faults {
		if !slices.Contains(kinds, f.Kind) {
			kinds = append(kinds, f.Kind)
		}
		if k, _ := trace.LookupKind(f.Kind); k.Needs {
			topo = k.Topology
		}
	}
	args := []string{"--protocol", ref.Scenario.Protocol, "--faults", strings.Join(kinds, ",")}
	if topo != "" {
		args = append(args, "--topology", topo)
	}
	if def, _ := (protocols.Scenario{Protocol: ref.Scenario.Protocol}).Normalize(); ref.Scenario.Workload != def.Workload {
		args = append(args, "--workload", ref.Scenario.Workload)
	}
	if ref.Expect.Property == checker.PropLiveness {
		args = append(args, "--liveness") // off by default
	}
	return args
}

// exploreBase asks the CLI for the scenario and first seed its explore
// runs with ref's arguments (one run), so that the search below walks
// the runs explore itself would make.
func exploreBase(t *testing.T, ref traces.Reference) (protocols.Scenario, uint64) {
	t.Helper()
	args := append([]string{"explore"}, exploreArgs(ref)...)
	_, out, errOut := runCLI(append(args, "--runs", "1", "--json")...)
	var s explore.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v: %v (%s)", args, err, errOut)
	}
	return s.Scenario, s.SeedStart
}

// showsBug reports whether the run of sc has ref's pinned violation and,
// where a release fixed the bug, that release's run of sc has not.
func showsBug(t *testing.T, ref traces.Reference, sc protocols.Scenario) bool {
	t.Helper()
	if !hasPinned(t, ref.Expect, sc) {
		return false
	}
	if fixed := ref.Bug.FixedProtocol; fixed != "" {
		sc.Protocol = fixed
		return !hasPinned(t, ref.Expect, sc)
	}
	return true
}

func hasPinned(t *testing.T, e traces.Expectation, sc protocols.Scenario) bool {
	t.Helper()
	o, err := traces.Evaluate(sc)
	if err != nil {
		t.Fatalf("%s seed %d: %v", sc.Protocol, sc.Seed, err)
	}
	return slices.ContainsFunc(o.File.Report.Violations, e.Shows)
}
