package explore

import (
	"fmt"

	"github.com/locksim/locksim/checker"
)

// DamageTotals sums what an exploration's runs did to the protected data,
// with how the damage spread over the runs.
type DamageTotals struct {
	Sum checker.Damage `json:"sum"`
	// HarmlessStaleWrites sums the runs' late writes with no newer
	// writer (checker.Damage.HarmlessLateWrites): not in Sum.
	HarmlessStaleWrites int `json:"harmless_stale_writes"`
	RunsWithDamage      int `json:"runs_with_damage"`
	// PerRun buckets the runs by their damage (Sum's total of one run).
	PerRun Plot `json:"per_run"`
}

// add counts one run's report.
func (t *DamageTotals) add(r checker.Report) {
	d, harmless := r.Harm()
	if len(t.PerRun.Buckets) == 0 {
		t.PerRun = damagePlot.newPlot()
	}
	t.Sum.Add(d)
	t.HarmlessStaleWrites += harmless
	if d.Total() > 0 {
		t.RunsWithDamage++
	}
	t.PerRun.Buckets[damagePlot.bucket(float64(d.Total()))].add(1, r.Verdict == checker.VerdictViolation)
}

// merge adds the totals of o into t.
func (t *DamageTotals) merge(o DamageTotals) error {
	t.Sum.Add(o.Sum)
	t.HarmlessStaleWrites += o.HarmlessStaleWrites
	t.RunsWithDamage += o.RunsWithDamage
	if len(o.PerRun.Buckets) == 0 {
		return nil
	}
	var have []Plot
	if len(t.PerRun.Buckets) > 0 {
		have = []Plot{t.PerRun}
	}
	merged, err := mergePlots(have, []Plot{o.PerRun})
	if err != nil {
		return err
	}
	t.PerRun = merged[0]
	return nil
}

// check refuses totals that contradict the summary's run counts.
func (t DamageTotals) check(runs, violating int) error {
	d := t.Sum
	for _, n := range []int{d.DuplicateInserts, d.LostUpdates, d.OversoldUnits, d.StaleWritesAccepted,
		d.StaleWritesRejected, d.LostElements, t.HarmlessStaleWrites} {
		if n < 0 {
			return fmt.Errorf("negative damage counts")
		}
	}
	if t.RunsWithDamage < 0 || t.RunsWithDamage > runs || t.RunsWithDamage > d.Total() {
		return fmt.Errorf("%d runs with damage of %d runs (damage %d)", t.RunsWithDamage, runs, d.Total())
	}
	if len(t.PerRun.Buckets) > 0 {
		return checkPlot(t.PerRun, runs, violating)
	}
	return nil
}
