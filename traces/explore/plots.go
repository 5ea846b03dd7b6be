package explore

import (
	"fmt"
	"math"
	"strconv"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// Plot is the judged runs of an exploration bucketed by one drawn
// parameter, with how many of each bucket's runs violated: the numbers behind one
// chart of the HTML report. Its buckets are fixed by the parameter, so
// the plots of shards add up bucket by bucket.
type Plot struct {
	Param   string   `json:"param"`
	Title   string   `json:"title"`
	Buckets []Bucket `json:"buckets"`
}

// Bucket counts the runs whose parameter fell in [Lo, Hi) (Hi 0: no
// upper bound).
type Bucket struct {
	Label     string  `json:"label"`
	Lo        float64 `json:"lo"`
	Hi        float64 `json:"hi,omitempty"`
	Runs      int     `json:"runs"`
	Violating int     `json:"violating_runs"`
}

// Rate is the share of the bucket's runs that violated (0 without runs).
func (b Bucket) Rate() float64 {
	if b.Runs == 0 {
		return 0
	}
	return float64(b.Violating) / float64(b.Runs)
}

// param is one parameter a run's normalized scenario drew: its value,
// false when the parameter does not apply to the run (no such fault, or
// a topology without it).
type param struct {
	name, title string
	unit        string // "ms" (labels in seconds), "ratio" or "" (integers print as counts)
	edges       []float64
	value       func(sc protocols.Scenario) (float64, bool)
}

// Parameter names, as the JSON and the tests know them.
const (
	ParamPause     = "pause_over_lease"
	ParamLag       = "replication_lag_ms"
	ParamDownAfter = "down_after_ms"
	ParamIntensity = "intensity"
	ParamClients   = "clients"
	ParamDamage    = "damage_per_run"
)

// params are the fault parameters the report plots the violation rate
// against, in the report's order.
var params = []param{
	{ParamPause, "longest gc-pause of a run ÷ lease", "ratio",
		[]float64{0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2}, longestPause},
	{ParamLag, "replication lag, s (link's + largest lag fault)", "ms",
		[]float64{0, 100, 500, 1000, 2000, 5000, 10000, 30000}, replicationLag},
	{ParamDownAfter, "sentinel down-after, s", "ms",
		[]float64{0, 2000, 5000, 10000, 20000}, downAfter},
	{ParamIntensity, "fault intensity", "",
		[]float64{0, 0.75, 1.5, 2.5, 3.5}, intensity},
	{ParamClients, "clients", "",
		[]float64{1, 2, 3, 4, 5, 6, 9, 17, 65}, func(sc protocols.Scenario) (float64, bool) {
			return float64(sc.Clients), true
		}},
}

// damagePlot buckets the runs by their damage (checker.Damage.Total after
// harmless stale writes are taken out).
var damagePlot = param{ParamDamage, "damage to the protected data per run", "",
	[]float64{0, 1, 2, 3, 5, 9, 17, 33, 65}, nil}

func longestPause(sc protocols.Scenario) (float64, bool) {
	longest := int64(-1)
	for _, f := range sc.Faults {
		if f.Kind == trace.FaultGCPause {
			longest = max(longest, f.DurMs)
		}
	}
	if longest < 0 || sc.LeaseMs <= 0 {
		return 0, false
	}
	return float64(longest) / float64(sc.LeaseMs), true
}

func replicationLag(sc protocols.Scenario) (float64, bool) {
	if sc.Topology != protocols.TopoReplicated {
		return 0, false
	}
	extra := int64(0)
	for _, f := range sc.Faults {
		if f.Kind == trace.FaultReplicationLag {
			extra = max(extra, f.Value)
		}
	}
	return float64(sc.ReplLagMs[1] + extra), true
}

func downAfter(sc protocols.Scenario) (float64, bool) {
	if sc.Topology != protocols.TopoReplicated || sc.DownAfterMs <= 0 {
		return 0, false
	}
	return float64(sc.DownAfterMs), true
}

func intensity(sc protocols.Scenario) (float64, bool) {
	if len(sc.Faults) == 0 {
		return 0, false
	}
	if sc.Intensity <= 0 {
		return 1, true // GenerateFaults' default
	}
	return sc.Intensity, true
}

// newPlot is p's plot with every bucket empty.
func (p param) newPlot() Plot {
	pl := Plot{Param: p.name, Title: p.title}
	for i, lo := range p.edges {
		b := Bucket{Lo: lo}
		if i+1 < len(p.edges) {
			b.Hi = p.edges[i+1]
		}
		b.Label = p.label(b.Lo, b.Hi)
		pl.Buckets = append(pl.Buckets, b)
	}
	return pl
}

// bucket is the index of v's bucket: the last edge at or below v (the
// first bucket for values below every edge).
func (p param) bucket(v float64) int {
	i := 0
	for j, e := range p.edges {
		if v >= e {
			i = j
		}
	}
	return i
}

// label names [lo, hi) in the parameter's unit (the title names it).
func (p param) label(lo, hi float64) string {
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	if p.unit == "ms" {
		num = func(v float64) string { return strconv.FormatFloat(v/1000, 'f', -1, 64) }
	}
	switch {
	case hi == 0:
		return "≥ " + num(lo)
	case p.unit == "" && isInts(p.edges) && hi == lo+1:
		return num(lo)
	case p.unit == "" && isInts(p.edges):
		return num(lo) + "–" + num(hi-1)
	}
	return num(lo) + "–" + num(hi)
}

func isInts(edges []float64) bool {
	for _, e := range edges {
		if e != math.Trunc(e) {
			return false
		}
	}
	return true
}

// runParams is where one run falls in each plot: a bucket index, or -1
// when the parameter does not apply to the run.
func runParams(sc protocols.Scenario) []int {
	out := make([]int, len(params))
	for i, p := range params {
		out[i] = -1
		if v, ok := p.value(sc); ok {
			out[i] = p.bucket(v)
		}
	}
	return out
}

// addPlots counts one run into plots (made on the first run).
func addPlots(plots []Plot, at []int, violating bool) []Plot {
	if len(plots) == 0 {
		for _, p := range params {
			plots = append(plots, p.newPlot())
		}
	}
	for i, b := range at {
		if b >= 0 {
			plots[i].Buckets[b].add(1, violating)
		}
	}
	return plots
}

func (b *Bucket) add(runs int, violating bool) {
	b.Runs += runs
	if violating {
		b.Violating += runs
	}
}

// mergePlots adds the plots of b into a, bucket by bucket; plots or
// buckets that do not match are summaries of another locksim.
func mergePlots(a, b []Plot) ([]Plot, error) {
	if len(b) == 0 {
		return a, nil
	}
	if len(a) == 0 {
		a = make([]Plot, len(b))
		for i, p := range b {
			a[i] = Plot{Param: p.Param, Title: p.Title, Buckets: make([]Bucket, len(p.Buckets))}
			for j, bk := range p.Buckets {
				a[i].Buckets[j] = Bucket{Label: bk.Label, Lo: bk.Lo, Hi: bk.Hi}
			}
		}
	}
	if len(a) != len(b) {
		return nil, fmt.Errorf("plots of %d and %d parameters", len(a), len(b))
	}
	for i := range a {
		if a[i].Param != b[i].Param || len(a[i].Buckets) != len(b[i].Buckets) {
			return nil, fmt.Errorf("plot %s does not match plot %s", a[i].Param, b[i].Param)
		}
		for j, bk := range b[i].Buckets {
			have := &a[i].Buckets[j]
			if have.Lo != bk.Lo || have.Hi != bk.Hi {
				return nil, fmt.Errorf("plot %s: bucket %s does not match %s", a[i].Param, have.Label, bk.Label)
			}
			have.Runs += bk.Runs
			have.Violating += bk.Violating
		}
	}
	return a, nil
}

// checkPlot refuses a plot whose buckets count more runs, or more
// violating runs, than the summary has.
func checkPlot(p Plot, runs, violating int) error {
	total, bad := 0, 0
	for _, b := range p.Buckets {
		if b.Runs < 0 || b.Violating < 0 || b.Violating > b.Runs {
			return fmt.Errorf("plot %s: bucket %s has %d violating of %d runs", p.Param, b.Label, b.Violating, b.Runs)
		}
		total += b.Runs
		bad += b.Violating
	}
	if total > runs || bad > violating {
		return fmt.Errorf("plot %s counts %d runs (%d violating) of %d (%d)", p.Param, total, bad, runs, violating)
	}
	return nil
}
