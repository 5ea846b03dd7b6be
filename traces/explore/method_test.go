package explore

import (
	"context"
	"strings"
	"testing"

	"github.com/locksim/locksim/protocols"
)

// The cells of the consistency test: protocols of every kind the catalog
// has (plain SET NX, go-redis, Redisson's releases with and without the
// watchdog and the sync check, fencing, Redlock's independent masters)
// under the four faults whose verdicts used to disagree between the
// commands (issue 29).
var (
	methodProtocols = []string{"setnx-lua-del", "redislock-go", "redisson", "redisson-latest", "redisson-trylock", "fenced", "redlock"}
	methodFaults    = []string{"failover", "replication-lag", "gc-pause", "partition"}
)

// TestCommandsAgreeOnEveryCell runs explore, matrix and verify on the
// same cells and fails on any contradiction:
//
//   - a matrix cell is explore's summary of the cell at the same budget:
//     the same runs judged unsafe, the same first seed and trace, the same
//     verdict text;
//   - a cell is n/a in all three or in none;
//   - a cell the sampled commands find unsafe is unsafe in verify too:
//     its bound covers what decides these cells (a verified cell that a
//     sampled run breaks would be printed safe-within-scope by one
//     command and unsafe by another);
//   - the matrix says how the scopes differ wherever its sampled and
//     bounded verdicts disagree.
//
// The budget is modest (matrix and explore 24 seeds a cell); under -race
// a few cells run, for the race detector's sake.
func TestCommandsAgreeOnEveryCell(t *testing.T) {
	ps, fs, runs := methodProtocols, methodFaults, 24
	if raceEnabled || testing.Short() {
		ps, fs, runs = []string{"setnx-lua-del", "redlock"}, []string{"failover", "gc-pause"}, 4
	}
	ctx := context.Background()
	m, err := RunMatrix(ctx, MatrixOptions{Protocols: ps, Faults: fs, Runs: runs, FirstSeed: 1, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		for _, f := range fs {
			c, ok := m.Cell(p, f)
			if !ok || c.Bounded == nil {
				t.Fatalf("%s / %s: no cell or no bounded verdict", p, f)
			}
			s, err := Explore(ctx, ExploreConfig{Base: cellScenario(p, "unique-name", f), Runs: runs, SeedStart: 1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			name := p + " / " + f
			if s.Verdict.Text != c.Evidence.Text || s.UnsafeRuns != c.Violating || s.UnsafeTrace != c.TraceSHA256 {
				t.Errorf("%s: explore says %q (trace %s), matrix %q (trace %s)", name, s.Verdict.Text, s.UnsafeTrace,
					c.Evidence.Text, c.TraceSHA256)
			}
			na := []bool{s.Verdict.Verdict == VerdictNA, c.Verdict == cellNA, c.Bounded.Verdict == cellNA}
			if na[0] != na[1] || na[1] != na[2] {
				t.Errorf("%s: n/a in explore, matrix, verify: %v (%s | %s)", name, na, s.Verdict.Text, c.Bounded.Claim)
			}
			if c.Verdict == CellUnsafe && c.Bounded.Verdict == cellBounded {
				t.Errorf("%s: sampled %q, but verify says %q", name, c.Evidence.Text, c.Bounded.Claim)
				if !strings.Contains(m.Text(), c.scopeNote()) || c.scopeNote() == "" {
					t.Errorf("%s: the matrix does not say how the scopes differ", name)
				}
			}
			for _, text := range []string{s.Verdict.Text, c.Bounded.Claim} {
				if !strings.HasPrefix(text, "unsafe") && !strings.HasPrefix(text, "not found in") && !strings.HasPrefix(text, "inconclusive: ") &&
					!strings.HasPrefix(text, "verified: every single "+f+" fault at every step, within ") && !strings.HasPrefix(text, "n/a: ") {
					t.Errorf("%s: %q is not in the verdict vocabulary", name, text)
				}
			}
		}
	}
}

// TestCellScenarioIsExplores: the cell's generator lands on the topology
// CellTopology names, so explore, matrix and verify judge a fault on the
// same deployment.
func TestCellScenarioIsExplores(t *testing.T) {
	for _, p := range protocols.Protocols() {
		for _, f := range append([]string{"none"}, methodFaults...) {
			topo, na := cellTopology(p, f)
			if na != "" {
				continue
			}
			sc, err := cellScenario(p.Name, "", f).Normalize()
			if err != nil {
				t.Fatal(err)
			}
			if sc.Topology != topo {
				t.Errorf("%s / %s: the generator runs on %s, the cell is judged on %s", p.Name, f, sc.Topology, topo)
			}
		}
	}
}

// TestVerdictVocabulary pins the formatter's words and statistics.
func TestVerdictVocabulary(t *testing.T) {
	seed := uint64(79)
	for _, c := range []struct {
		v    Verdict
		want string
	}{
		{sampled(2000, 11, 0, 0, "", &seed), "unsafe: 11 of 2,000 runs (0.55%, 95% interval 0.31%-0.98%), first seed 79"},
		{sampled(2000, 0, 0, 0, "", nil), "not found in 2,000 runs: rate < 0.15% at 95%"},
		{sampled(100, 0, 0, 0, "", nil), "not found in 100 runs: rate < 3.0% at 95%"},
		{sampled(200, 0, 5, 0, "", nil), "not found in 200 runs: rate < 1.5% at 95%; the data store lost writes in 5 of them (2.5%), which no lock prevents"},
		{exhaustive("gc-pause", 1, "2 clients x 2 ops", tried{runs: 40}, "", ""), "verified: every single gc-pause fault at every step, within 2 clients x 2 ops (40 placements)"},
		{notApplicable("failover needs the replicated topology"), "n/a: failover needs the replicated topology"},
	} {
		if c.v.Text != c.want {
			t.Errorf("got  %q\nwant %q", c.v.Text, c.want)
		}
	}
}

// A fence refuses every write older than one the data has accepted, so
// fenced under gc-pause on stock accepts no stale write over 40 seeds,
// while the same lock without tokens does: the count is judged against
// the data's history, not the run's verdict (DESIGN.md D18).
func TestFencingLeavesNoStaleWriteAccepted(t *testing.T) {
	ctx := context.Background()
	stale := map[string]int{}
	for _, p := range []string{"fenced", "setnx-lua-del"} {
		s, err := Explore(ctx, ExploreConfig{Base: cellScenario(p, "stock", "gc-pause"), Runs: 40, SeedStart: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		stale[p] = s.Damage.Sum.StaleWritesAccepted
		if p == "fenced" && s.Damage.Sum.StaleWritesRejected == 0 {
			t.Errorf("fenced: fencing rejected no stale write in 40 runs: the pauses did not reach it")
		}
	}
	if stale["fenced"] != 0 || stale["setnx-lua-del"] == 0 {
		t.Errorf("stale writes accepted over 40 seeds: fenced %d (want 0), setnx-lua-del %d (want > 0)", stale["fenced"], stale["setnx-lua-del"])
	}
}
