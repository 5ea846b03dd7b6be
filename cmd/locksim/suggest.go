package main

import (
	"regexp"
	"strings"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

// nearest returns the valid name closest to name, for a "did you mean"
// hint: the one fewest edits away (a transposition counts as one edit),
// within a third of the name's length (at least one edit), or the only
// valid name that starts with name. It returns "" when none is close.
func nearest(name string, valid []string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return ""
	}
	best, bestD := "", 0
	for _, v := range valid {
		d := editDistance(name, strings.ToLower(v))
		if best == "" || d < bestD {
			best, bestD = v, d
		}
	}
	if best != "" && bestD <= max(1, len(name)/3) {
		return best
	}
	prefixed := ""
	for _, v := range valid {
		if len(name) >= 3 && strings.HasPrefix(strings.ToLower(v), name) {
			if prefixed != "" {
				return "" // two names start so: no single guess
			}
			prefixed = v
		}
	}
	return prefixed
}

// editDistance is the optimal-string-alignment distance between a and b:
// insertions, deletions, substitutions and swaps of neighbours.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// unknownName finds the name an error refuses: `unknown protocol "x"`.
var unknownName = regexp.MustCompile(`unknown (command|protocol|workload|fault kind|topology|scenario|persistence) "([^"]*)"`)

// withSuggestion appends "did you mean X?" to an error message that
// refuses an unknown name of a known vocabulary, when one valid name is
// close to it.
func withSuggestion(msg string) string {
	m := unknownName.FindStringSubmatch(msg)
	if m == nil || strings.Contains(msg, "did you mean") {
		return msg
	}
	if s := nearest(m[2], validNames(m[1])); s != "" && s != m[2] {
		return msg + "; did you mean " + s + "?"
	}
	return msg
}

// validNames lists the names of one vocabulary (as `locksim list` does).
func validNames(what string) []string {
	var out []string
	switch what {
	case "command":
		for _, c := range commands() {
			out = append(out, c.name)
		}
	case "protocol":
		for _, p := range protocols.Protocols() {
			out = append(out, p.Name)
		}
	case "workload":
		for _, w := range protocols.Workloads() {
			out = append(out, w.Name)
		}
	case "fault kind":
		out = append([]string{"none"}, trace.KindNames()...)
	case "topology":
		out = protocols.Topologies()
	case "scenario":
		for _, r := range traces.References() {
			out = append(out, r.Name)
		}
	case "persistence":
		out = []string{sim.PersistNone, sim.PersistEverysec, sim.PersistAlways}
	}
	return out
}
