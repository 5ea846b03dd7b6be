package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/explore"
)

func cmdMerge(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("merge", stdout)
	asJSON := fs.Bool("json", false, "print the merged summary as JSON")
	html := fs.String("html", "", "write the HTML report of the merged summary to `FILE` (a regular file; causes link to timelines that explore --html wrote)")
	maxMB := registerMaxInput(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return usageErr(stderr, "merge", err)
	}
	if len(pos) == 0 {
		return usageErr(stderr, "merge", errors.New("want one or more explore --out DIRs (or summary.json files)"))
	}
	limit, err := maxInputBytes(*maxMB)
	if err != nil {
		return usageErr(stderr, "merge", err)
	}
	var parts []*explore.Summary
	var paths []string
	for _, p := range pos {
		path := p
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			path = filepath.Join(p, explore.SummaryFile)
		}
		for _, q := range paths {
			if traces.SameFile(q, path) {
				return usageErr(stderr, "merge", fmt.Errorf("%s is given twice", path))
			}
		}
		s, err := explore.ReadSummaryLimit(path, limit)
		if err != nil {
			return usageErr(stderr, "merge", err)
		}
		parts, paths = append(parts, s), append(paths, path)
	}
	dirs := make([]string, len(paths))
	for i, p := range paths {
		dirs[i] = filepath.Dir(p)
	}
	if err := checkReport(*html, paths, dirs); err != nil {
		return usageErr(stderr, "merge", err)
	}
	m, err := explore.MergeShards(parts, paths)
	if err != nil {
		return usageErr(stderr, "merge", err)
	}
	if *html != "" {
		notes := stdout // on stderr when stdout carries JSON
		if *asJSON {
			notes = stderr
		}
		if err := writeReport(*html, m, len(parts), notes); err != nil {
			return usageErr(stderr, "merge", err)
		}
	}
	if *asJSON {
		b, _ := json.MarshalIndent(m, "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else {
		printSummary(stdout, m)
	}
	return exploreExit(m, nil)
}
