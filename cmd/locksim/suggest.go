package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/locksim/locksim/internal/suggest"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces"
)

// nearest returns the valid name closest to name, for a "did you mean"
// hint: suggest.Nearest's, or else the only valid name that starts with
// name. It returns "" when none is close.
func nearest(name string, valid []string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return ""
	}
	if best, ok := suggest.Nearest(name, valid); ok {
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

// unknownName finds the name an error refuses: `unknown protocol "x"`.
var unknownName = regexp.MustCompile(`unknown (command|protocol|workload|fault kind|topology|scenario|persistence) "([^"]*)"`)

// knownList is the list of valid names an error gives: "(known: a, b)".
var knownList = regexp.MustCompile(`\(known: ([^()]*)\)`)

// withSuggestion puts ` (did you mean "X"?)`, suggest.Hint's wording,
// after the name in an error message that refuses an unknown name of a
// known vocabulary, when one valid name is close to it.
func withSuggestion(msg string) string {
	loc := unknownName.FindStringSubmatchIndex(msg)
	if loc == nil || strings.Contains(msg, "did you mean") {
		return msg
	}
	what, name := msg[loc[2]:loc[3]], msg[loc[4]:loc[5]]
	var valid []string
	if m := knownList.FindStringSubmatch(msg); m != nil {
		valid = strings.Split(m[1], ", ") // what the refusing command takes (verify: no "none")
	} else {
		valid = validNames(what)
	}
	if s := nearest(name, valid); s != "" && s != name {
		return fmt.Sprintf("%s (did you mean %q?)%s", msg[:loc[1]], s, msg[loc[1]:])
	}
	return msg
}

// validNames lists the names of a vocabulary whose refusal does not list
// them (fault kinds, topologies and persistence modes do: "(known: ...)").
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
	case "scenario":
		for _, r := range traces.References() {
			out = append(out, r.Name)
		}
	}
	return out
}
