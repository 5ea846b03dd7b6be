package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/explore"
)

type listItem struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	Source  string `json:"source,omitempty"`
}

type listing struct {
	Protocols  []listItem `json:"protocols"`
	Workloads  []listItem `json:"workloads"`
	Faults     []string   `json:"faults"`
	Topologies []string   `json:"topologies"`
	Scenarios  []listItem `json:"scenarios"`
	Bugs       []bugItem  `json:"bugs"`
	// Redisson is each modelled Redisson release with the corpus bugs
	// its own run of each bug's scenario shows.
	Redisson []traces.RedissonRelease `json:"redisson_releases"`
}

// bugItem is one published bug of the corpus and the scenario that
// reproduces it.
type bugItem struct {
	Bug      string `json:"bug"`
	Library  string `json:"library"`
	Affected string `json:"affected"`
	Scenario string `json:"scenario"`
	Cause    string `json:"cause"`
	URL      string `json:"url"`
	Fixed    string `json:"fixed,omitempty"`
	// ExploreRuns is how many runs explore needs, from its defaults, to
	// find the bug.
	ExploreRuns int `json:"explore_runs"`
}

func cmdList(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("list", stdout)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return usageErr(stderr, "list", err)
	}
	if len(pos) > 0 {
		return usageErr(stderr, "list", fmt.Errorf("unexpected argument %q", pos[0]))
	}
	var l listing
	for _, p := range protocols.Protocols() {
		l.Protocols = append(l.Protocols, listItem{p.Name, p.Summary, p.Source})
	}
	for _, w := range protocols.Workloads() {
		l.Workloads = append(l.Workloads, listItem{w.Name, w.Summary, w.Source})
	}
	l.Faults = append([]string{"none"}, trace.KindNames()...)
	l.Topologies = protocols.Topologies()
	for _, r := range traces.References() {
		l.Scenarios = append(l.Scenarios, listItem{Name: r.Name, Summary: r.Summary})
	}
	for _, r := range traces.Bugs() {
		b := r.Bug
		l.Bugs = append(l.Bugs, bugItem{b.ID, b.Library, b.Affected, r.Name, b.Cause, b.URL, b.FixedProtocol, b.ExploreRuns})
	}
	if l.Redisson, err = traces.RedissonReleases(); err != nil {
		return internalError(stderr, err)
	}
	if *asJSON {
		b, _ := json.MarshalIndent(l, "", "  ")
		fmt.Fprintln(stdout, string(b))
		return exitOK
	}
	section("protocols", l.Protocols, stdout)
	section("workloads", l.Workloads, stdout)
	words(stdout, "faults: ", l.Faults)
	words(stdout, "topologies: ", l.Topologies)
	section("scenarios", l.Scenarios, stdout)
	printBugs(stdout, l.Bugs)
	printReleases(stdout, l.Redisson)
	return exitOK
}

// listWidth is the width list's text fits in; --json keeps every field
// whole.
const listWidth = 100

// nameColumn is the widest name column; a longer name gets its text on
// the lines below it.
const nameColumn = 24

// section prints a titled list of names with their summaries, the
// summaries wrapped to listWidth.
func section(title string, items []listItem, w io.Writer) {
	fmt.Fprintln(w, title+":")
	col := 0
	for _, it := range items {
		if n := len(it.Name); n <= nameColumn {
			col = max(col, n)
		}
	}
	indent := strings.Repeat(" ", 2+col+2)
	for _, it := range items {
		lines := wrap(it.Summary, listWidth-len(indent))
		if len(it.Name) > col {
			fmt.Fprintf(w, "  %s\n", it.Name)
		} else if len(lines) > 0 {
			fmt.Fprintf(w, "  %-*s  %s\n", col, it.Name, lines[0])
			lines = lines[1:]
		}
		for _, l := range lines {
			fmt.Fprintln(w, indent+l)
		}
	}
}

// words prints a label and a comma-separated list, wrapped.
func words(w io.Writer, label string, items []string) {
	lines := wrap(strings.Join(items, ", "), listWidth-2)
	for i, l := range lines {
		if i == 0 && len(label)+len(l) <= listWidth {
			fmt.Fprintln(w, label+l)
			continue
		}
		if i == 0 {
			fmt.Fprintln(w, strings.TrimSpace(label))
		}
		fmt.Fprintln(w, "  "+l)
	}
}

// wrap breaks text into lines of at most width bytes at spaces (a word
// longer than width gets a line of its own).
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// printBugs prints the published-bug corpus, one block a bug.
func printBugs(w io.Writer, bugs []bugItem) {
	fmt.Fprintln(w, "published bugs (reproduce one with locksim run --scenario NAME):")
	for _, b := range bugs {
		fmt.Fprintf(w, "  %s: %s\n", b.Bug, b.Library)
		field := func(label, text string) {
			lines := wrap(text, listWidth-6-len(label))
			for i, l := range lines {
				if i == 0 {
					fmt.Fprintf(w, "    %s: %s\n", label, l)
				} else {
					fmt.Fprintf(w, "    %s  %s\n", strings.Repeat(" ", len(label)), l)
				}
			}
		}
		field("affected", b.Affected)
		field("cause", b.Cause)
		field("scenario", fmt.Sprintf("%s (explore finds it within %s)", b.Scenario, explore.Plural(b.ExploreRuns, "run")))
	}
}

// printReleases prints which corpus bugs each Redisson release shows.
func printReleases(w io.Writer, rs []traces.RedissonRelease) {
	fmt.Fprintln(w, "Redisson releases (each bug's scenario run on each release):")
	for _, r := range rs {
		bugs := strings.Join(r.Bugs, ", ")
		if bugs == "" {
			bugs = "none"
		}
		line := fmt.Sprintf("%s (--protocol %s): shows %s", r.Release, r.Protocol, bugs)
		if r.Use {
			line += "; use this one"
		}
		for i, l := range wrap(line, listWidth-4) {
			if i == 0 {
				fmt.Fprintln(w, "  "+l)
			} else {
				fmt.Fprintln(w, "    "+l)
			}
		}
	}
}
