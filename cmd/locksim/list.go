package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
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
	section := func(title string, items []listItem) {
		fmt.Fprintln(stdout, title+":")
		for _, it := range items {
			fmt.Fprintf(stdout, "  %-30s %s\n", it.Name, it.Summary)
		}
	}
	section("protocols", l.Protocols)
	section("workloads", l.Workloads)
	fmt.Fprintf(stdout, "faults: %v\ntopologies: %v\n", l.Faults, l.Topologies)
	section("scenarios", l.Scenarios)
	printBugs(stdout, l.Bugs)
	printReleases(stdout, l.Redisson)
	return exitOK
}

// printBugs prints the published-bug corpus as a table.
func printBugs(w io.Writer, bugs []bugItem) {
	fmt.Fprintln(w, "published bugs (locksim run --scenario NAME):")
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  BUG\tLIBRARY\tAFFECTED\tSCENARIO\tEXPLORE RUNS\tCAUSE")
	for _, b := range bugs {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\t%s\n", b.Bug, b.Library, b.Affected, b.Scenario, b.ExploreRuns, b.Cause)
	}
	tw.Flush()
}

// printReleases prints which corpus bugs each Redisson release shows.
func printReleases(w io.Writer, rs []traces.RedissonRelease) {
	fmt.Fprintln(w, "Redisson releases (each bug's scenario run on each release):")
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  RELEASE\tPROTOCOL\tCORPUS BUGS IT SHOWS\t")
	for _, r := range rs {
		bugs := strings.Join(r.Bugs, " ")
		if bugs == "" {
			bugs = "none"
		}
		use := ""
		if r.Use {
			use = "<- use this one"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r.Release, r.Protocol, bugs, use)
	}
	tw.Flush()
}
