// Package suggest finds the valid name nearest to a misspelt one, for
// "did you mean" hints on flags, scenario files and their values.
package suggest

import (
	"fmt"
	"strings"
)

// Distance is the edit distance between a and b: the fewest insertions,
// deletions, substitutions and swaps of two neighbouring letters that turn
// one into the other (optimal string alignment), ignoring case.
func Distance(a, b string) int {
	x, y := []rune(strings.ToLower(a)), []rune(strings.ToLower(b))
	// d[i][j] is the distance between x[:i] and y[:j].
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// Nearest returns the candidate nearest to name, the first of equals, and
// whether it is near enough to be what the user meant: at most a third of
// the longer name's letters apart (at least one).
func Nearest(name string, candidates []string) (string, bool) {
	best, bestD := "", -1
	for _, c := range candidates {
		if d := Distance(name, c); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 {
		return "", false
	}
	limit := max(1, max(len(name), len(best))/3)
	return best, bestD <= limit
}

// Hint is the end of an "unknown NAME" message: ` (did you mean "x"?)`
// when a candidate is near, else the valid names when they are few
// (` (valid: a, b, c)`), else "".
func Hint(name string, candidates []string) string {
	if best, ok := Nearest(name, candidates); ok {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	if len(candidates) > 0 && len(candidates) <= 12 {
		return " (valid: " + strings.Join(candidates, ", ") + ")"
	}
	return ""
}

// Unknown is the one-line error for a name that is not one of
// candidates: `unknown <what> "<name>" (did you mean "<nearest>"?)`.
func Unknown(what, name string, candidates []string) error {
	return fmt.Errorf("unknown %s %q%s", what, name, Hint(name, candidates))
}
