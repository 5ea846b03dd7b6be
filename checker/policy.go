package checker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/locksim/locksim/internal/suggest"
)

// properties lists the properties in the order reports print them: what
// the lock's own code did wrong first, then what it let happen.
var properties = []string{PropOwnership, PropMutex, PropDamage, PropLiveness}

// Properties returns every property, in the order reports print them.
func Properties() []string { return slices.Clone(properties) }

// Heading is what a report prints above the violations of property p.
func Heading(p string) string {
	switch p {
	case PropOwnership:
		return "ownership: a client renewed or released a lease it did not hold"
	case PropMutex:
		return "mutual exclusion: two clients inside the critical section at once"
	case PropDamage:
		return "damage to the protected data"
	case PropLiveness:
		return "liveness: a lock held by nobody who knows it, or a waiter that never wakes"
	}
	return p
}

// Group is the violations of one property, in the report's order.
type Group struct {
	Property   string
	Violations []Violation
}

// Groups returns r's violations by property, in the order of
// Properties, each violation once; properties without a violation are
// left out.
func (r Report) Groups() []Group {
	var out []Group
	for _, p := range properties {
		var vs []Violation
		for _, v := range r.Violations {
			if v.Property == p {
				vs = append(vs, v)
			}
		}
		if len(vs) > 0 {
			out = append(out, Group{p, vs})
		}
	}
	return out
}

// Broken lists the properties r broke, in the order of Properties: those
// of its violations, and damage when the data was harmed (Damage.Total)
// without a damage violation.
func (r Report) Broken() []string {
	var out []string
	for _, p := range properties {
		broke := p == PropDamage && r.Damage.Total() > 0
		for _, v := range r.Violations {
			broke = broke || v.Property == p
		}
		if broke {
			out = append(out, p)
		}
	}
	return out
}

// FailOn is the set of properties whose violation fails a run: the exit
// status policy of --fail-on and locktest's FailOn option. The zero
// value (nil) fails a run that broke any property: "any".
type FailOn []string

// failOnWords names each property as --fail-on spells it.
var failOnWords = map[string]string{
	"ownership": PropOwnership, "exclusion": PropMutex, "damage": PropDamage, "liveness": PropLiveness,
}

// FailOnWords is what --fail-on accepts, comma-separated.
const FailOnWords = "ownership, exclusion, damage, liveness or any"

// ParseFailOn reads a comma-separated --fail-on value: ownership,
// exclusion, damage, liveness, any; a property's own name, as reports
// print it (mutual-exclusion), is accepted too.
func ParseFailOn(s string) (FailOn, error) {
	var out FailOn
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(w)
		if w == "any" {
			return FailOn(Properties()), nil
		}
		p, ok := failOnWords[w]
		if !ok && slices.Contains(properties, w) {
			p, ok = w, true // the name reports print (mutual-exclusion)
		}
		if !ok {
			words := []string{"any"}
			for k := range failOnWords {
				words = append(words, k)
			}
			slices.Sort(words)
			hint := ""
			if best, near := suggest.Nearest(w, words); near {
				hint = fmt.Sprintf(" (did you mean %q?)", best)
			}
			return nil, fmt.Errorf("%q is not a property%s: want %s", w, hint, FailOnWords)
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(properties, a) - slices.Index(properties, b) })
	return out, nil
}

// String spells the policy as --fail-on does.
func (p FailOn) String() string {
	if len(p) == 0 || p.covers(properties) {
		return "any"
	}
	words := make([]string, len(p))
	for i, prop := range p {
		words[i] = prop
		for w, q := range failOnWords {
			if q == prop {
				words[i] = w
			}
		}
	}
	return strings.Join(words, ",")
}

func (p FailOn) covers(props []string) bool {
	for _, q := range props {
		if !slices.Contains(p, q) {
			return false
		}
	}
	return true
}

// Fails is the one decision behind every exit status: a run (or an
// exploration) that broke the properties broken fails under p when it
// broke one p names. An empty policy is "any".
func (p FailOn) Fails(broken []string) bool {
	for _, b := range broken {
		if len(p) == 0 || slices.Contains(p, b) {
			return true
		}
	}
	return false
}

// Fails reports whether r fails under policy p.
func (r Report) Fails(p FailOn) bool { return p.Fails(r.Broken()) }
