package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/locksim/locksim/protocols"
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
	l.Faults = append([]string{"none"}, protocols.FaultKinds...)
	l.Topologies = protocols.Topologies
	for _, r := range traces.References() {
		l.Scenarios = append(l.Scenarios, listItem{Name: r.Name, Summary: r.Summary})
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
	return exitOK
}
