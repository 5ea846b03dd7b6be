package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/explore"
	"github.com/locksim/locksim/traces/report"
	"github.com/locksim/locksim/traces/view"
)

// checkReport refuses, before any run, an --html FILE that the safe
// writer could not write, that is one of the inputs, or that takes the
// name of a file explore writes in one of dirs (its --out, or the
// directories of the summaries merge reads).
func checkReport(html string, inputs, dirs []string) error {
	if html == "" {
		return nil
	}
	if err := checkOutputs(inputs, html); err != nil {
		return err
	}
	_, err := os.Stat(filepath.Dir(html))
	toMake := errors.Is(err, fs.ErrNotExist) && slices.ContainsFunc(dirs, func(d string) bool {
		return traces.SameFile(d, filepath.Dir(html))
	})
	if !toMake { // (an --out directory explore is about to make is not there yet)
		if err := traces.CheckOutput(html); err != nil {
			return err
		}
	}
	if st, err := os.Stat(html); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("--html %s is not a regular file: the report is a page to open in a browser", html)
	}
	names := []string{html}
	if t, err := filepath.EvalSymlinks(html); err == nil {
		names = append(names, t)
	}
	for _, d := range dirs {
		for _, n := range names {
			if traces.SameFile(filepath.Dir(n), d) && explore.OwnsName(filepath.Base(n)) {
				return fmt.Errorf("--html %s would take the place of a file explore writes in %s (use another name, e.g. %s)",
					html, d, filepath.Join(d, "report.html"))
			}
		}
	}
	return nil
}

// exploreReport writes explore's report, and first, when --out saved the
// causes' traces, their timelines.
func exploreReport(path string, s *explore.Summary, saved bool, notes io.Writer) error {
	if saved {
		// Traces this explore just wrote: no cap below the largest.
		if err := writeTimelines(s, maxInputMB); err != nil {
			return err
		}
	}
	return writeReport(path, s, 1, notes)
}

// outDirs lists the --out directory, if any.
func outDirs(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// writeTimelines renders the timeline of each cause's first trace next to
// it (explore --out with --html), through the safe writer.
func writeTimelines(s *explore.Summary, maxMB int64) error {
	for _, c := range s.Causes {
		if c.Trace == "" {
			continue
		}
		f, err := readTrace(c.Trace, maxMB)
		if err != nil {
			return err
		}
		page, err := view.ViewFile(f)
		if err != nil {
			return err
		}
		if err := traces.WriteAtomic(explore.TimelineOf(c.Trace), page); err != nil {
			return err
		}
	}
	return nil
}

// writeReport writes the HTML report of s to path, linking each cause to
// its first trace's timeline where that file exists, and notes it.
func writeReport(path string, s *explore.Summary, shards int, notes io.Writer) error {
	opt := report.Options{Shards: shards, Timelines: map[string]string{}}
	for _, c := range s.Causes {
		if c.Trace == "" {
			continue
		}
		tl := explore.TimelineOf(c.Trace)
		if st, err := os.Stat(tl); err == nil && st.Mode().IsRegular() {
			opt.Timelines[c.Trace] = href(path, tl)
		}
	}
	page, err := report.Page(s, opt)
	if err != nil {
		return err
	}
	if err := traces.WriteAtomic(path, page); err != nil {
		return err
	}
	fmt.Fprintf(notes, "wrote %s\n", path)
	return nil
}

// href is target's address from the page at from: relative when both
// are under one directory tree, else an absolute file URL.
func href(from, target string) string {
	absFrom, err1 := filepath.Abs(filepath.Dir(from))
	absTarget, err2 := filepath.Abs(target)
	if err1 != nil || err2 != nil {
		return target
	}
	rel, err := filepath.Rel(absFrom, absTarget)
	if err != nil {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(absTarget)}
		return u.String()
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}
