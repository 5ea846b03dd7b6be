package explore

import (
	"encoding/json"
	"reflect"
	"testing"
)

// jsonPlots reads the plots back from the summary's JSON, as a user of
// summary.json (or explore --json) would.
func jsonPlots(t *testing.T, s *Summary) map[string][]Bucket {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Runs      int    `json:"runs"`
		Violating int    `json:"violating_runs"`
		Plots     []Plot `json:"plots"`
		Damage    struct {
			PerRun Plot `json:"per_run"`
		} `json:"damage"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	out := map[string][]Bucket{ParamDamage: back.Damage.PerRun.Buckets}
	for _, p := range back.Plots {
		out[p.Param] = p.Buckets
	}
	return out
}

// rateOf sums the buckets whose range lies in [lo, hi) (hi 0: no bound).
func rateOf(bs []Bucket, lo, hi float64) (runs, violating int) {
	for _, b := range bs {
		if b.Lo >= lo && (hi == 0 || b.Hi != 0 && b.Hi <= hi) {
			runs += b.Runs
			violating += b.Violating
		}
	}
	return runs, violating
}

// TestPauseRateRisesPastTheLease: setnx-del under gc-pause violates more
// often as a run's longest pause approaches and passes the lease; the
// numbers are the JSON summary's, the same the report plots.
func TestPauseRateRisesPastTheLease(t *testing.T) {
	runs := 800
	if raceEnabled {
		runs = 400
	}
	base := exploreBase
	base.Swarm = true // as the CLI explores
	s := explore(t, ExploreConfig{Base: base, Runs: runs, SeedStart: 1})
	plots := jsonPlots(t, s)
	pause := plots[ParamPause]
	// Every run pauses at least one client, so every run is in one bucket.
	if n, v := rateOf(pause, 0, 0); n != s.Runs || v != s.Violating {
		t.Fatalf("pause buckets count %d runs (%d violating), the summary %d (%d)", n, v, s.Runs, s.Violating)
	}
	lowN, lowV := rateOf(pause, 0, 0.5)
	midN, midV := rateOf(pause, 0.5, 1)
	highN, highV := rateOf(pause, 1, 0)
	t.Logf("pause < lease/2: %d/%d; lease/2..lease: %d/%d; >= lease: %d/%d", lowV, lowN, midV, midN, highV, highN)
	if lowN < 5 || midN < 5 || highN < runs/2 {
		t.Fatalf("too few runs to compare: %d, %d, %d", lowN, midN, highN)
	}
	low, mid, high := float64(lowV)/float64(lowN), float64(midV)/float64(midN), float64(highV)/float64(highN)
	if !(low < mid && mid < high && high > 2*low+0.2) {
		t.Fatalf("violation rate does not rise with the pause: %.2f, %.2f, %.2f", low, mid, high)
	}
	for _, p := range []string{ParamIntensity, ParamClients, ParamDamage} {
		if n, _ := rateOf(plots[p], 0, 0); n != s.Runs {
			t.Errorf("plot %s counts %d of %d runs", p, n, s.Runs)
		}
	}
	// A single-master run draws no replication or sentinel.
	for _, p := range []string{ParamLag, ParamDownAfter} {
		if n, _ := rateOf(plots[p], 0, 0); n != 0 {
			t.Errorf("plot %s counts %d runs of a single master", p, n)
		}
	}
	// The damage spread: a run without damage did not violate here, and
	// the runs with damage are the summary's.
	dmg := plots[ParamDamage]
	if dmg[0].Lo != 0 || dmg[0].Violating != 0 || s.Runs-dmg[0].Runs != s.Damage.RunsWithDamage {
		t.Errorf("damage buckets %+v vs %d runs with damage", dmg[:2], s.Damage.RunsWithDamage)
	}
}

func TestBucketEdgesAndLabels(t *testing.T) {
	p := params[0] // pause / lease
	for _, c := range []struct {
		v    float64
		want string
	}{{0, "0–0.25"}, {0.2499, "0–0.25"}, {0.25, "0.25–0.5"}, {1, "1–1.25"}, {1.99, "1.75–2"}, {2, "≥ 2"}, {7, "≥ 2"}} {
		if got := p.newPlot().Buckets[p.bucket(c.v)].Label; got != c.want {
			t.Errorf("pause %v in bucket %q, want %q", c.v, got, c.want)
		}
	}
	var labels []string
	for _, b := range damagePlot.newPlot().Buckets {
		labels = append(labels, b.Label)
	}
	if want := []string{"0", "1", "2", "3–4", "5–8", "9–16", "17–32", "33–64", "≥ 65"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("damage labels %q", labels)
	}
	lag := params[1].newPlot().Buckets
	if lag[2].Label != "0.5–1" || lag[len(lag)-1].Label != "≥ 30" {
		t.Errorf("lag labels %q, %q", lag[2].Label, lag[len(lag)-1].Label)
	}
}
