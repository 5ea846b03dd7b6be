package model

import (
	"fmt"
	"strconv"
	"strings"
)

// Data of one's own kept in Redis (locktest.Data): each operation a
// client performs on it inside its critical section is recorded with
// kind DataKind(name), and the run ends with one judgement of kind
// DataFinalKind(name), recorded by the last client to finish: its Value
// holds the protected keys' final values and its Result the harm the
// user's invariant found (Harm.String), which the checker reads back.

const dataPrefix, finalSuffix = "data:", ":final"

// DataKind is the Op kind of an operation on the user data called name.
func DataKind(name string) string { return dataPrefix + name }

// DataFinalKind is the Op kind of the user data's final judgement.
func DataFinalKind(name string) string { return dataPrefix + name + finalSuffix }

// SplitDataKind reads a kind written by DataKind or DataFinalKind.
func SplitDataKind(kind string) (name string, final, ok bool) {
	name, ok = strings.CutPrefix(kind, dataPrefix)
	if !ok {
		return "", false, false
	}
	name, final = strings.CutSuffix(name, finalSuffix)
	return name, final, name != ""
}

// Harm is what a user's invariant found wrong with its data at the end
// of a run, counted as the built-in workloads' damage is.
type Harm struct {
	LostUpdates, DuplicateInserts, OversoldUnits, LostElements int
	// Explanation says what is wrong, in one sentence ("stock is 97
	// after 5 sales of 100: 2 sales lost").
	Explanation string
}

// Total is the sum of the counts.
func (h Harm) Total() int {
	return h.LostUpdates + h.DuplicateInserts + h.OversoldUnits + h.LostElements
}

// fields are h's counts in the order String writes them.
func (h *Harm) fields() []struct {
	name string
	n    *int
} {
	return []struct {
		name string
		n    *int
	}{{"lost-updates", &h.LostUpdates}, {"duplicate-inserts", &h.DuplicateInserts},
		{"oversold-units", &h.OversoldUnits}, {"lost-elements", &h.LostElements}}
}

// String is h as a judgement's Result: "ok", or the counts then the
// explanation ("lost-updates=2; stock is 97 after ...").
func (h Harm) String() string {
	if h.Total() == 0 && h.Explanation == "" {
		return ResOK
	}
	var parts []string
	for _, f := range h.fields() {
		if *f.n != 0 {
			parts = append(parts, f.name+"="+strconv.Itoa(*f.n))
		}
	}
	return strings.Join(parts, " ") + "; " + h.Explanation
}

// ParseHarm reads a judgement's Result written by Harm.String.
func ParseHarm(s string) (Harm, error) {
	var h Harm
	if s == ResOK {
		return h, nil
	}
	counts, expl, ok := strings.Cut(s, "; ")
	if !ok {
		return h, fmt.Errorf("data judgement %q: no \"; \" before the explanation", s)
	}
	h.Explanation = expl
	for _, c := range strings.Fields(counts) {
		name, v, _ := strings.Cut(c, "=")
		n, err := strconv.Atoi(v)
		found := false
		for _, f := range h.fields() {
			if f.name == name && err == nil && n >= 0 {
				*f.n, found = n, true
			}
		}
		if !found {
			return h, fmt.Errorf("data judgement %q: bad count %q", s, c)
		}
	}
	return h, nil
}
