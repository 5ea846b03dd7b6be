package explore

import "github.com/locksim/locksim/checker"

// StateCount is how many runs reached one dangerous state
// (checker.Coverage), violating or not.
type StateCount struct {
	State string `json:"state"`
	Runs  int    `json:"runs"`
}

// addCoverage counts the states one run reached into counts, which holds
// every state in checker.Coverage's order.
func addCoverage(counts []StateCount, c checker.Coverage) []StateCount {
	states := c.States()
	if len(counts) == 0 {
		counts = make([]StateCount, len(states))
		for i, s := range states {
			counts[i].State = s.Name
		}
	}
	for i, s := range states {
		if s.Reached {
			counts[i].Runs++
		}
	}
	return counts
}

// mergeCoverage adds the counts of b into a, by state name.
func mergeCoverage(a, b []StateCount) []StateCount {
	if len(a) == 0 {
		return append([]StateCount(nil), b...)
	}
	for _, s := range b {
		for i := range a {
			if a[i].State == s.State {
				a[i].Runs += s.Runs
			}
		}
	}
	return a
}
