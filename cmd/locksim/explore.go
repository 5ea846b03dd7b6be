package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/explore"
)

func cmdExplore(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("explore")
	protocol := fs.String("protocol", "", "lock protocol (required)")
	workload := fs.String("workload", "unique-name", "workload")
	faults := fs.String("faults", "none", "comma-separated fault kinds")
	topology := fs.String("topology", "", "single, replicated or independent")
	clients := fs.Int("clients", 3, "client processes per run")
	intensity := fs.Float64("intensity", 1, "fault intensity")
	runs := fs.Int("runs", 1000, "number of seeds to run")
	seedStart := fs.Uint64("seed-start", 1, "first seed")
	workers := fs.Int("workers", 0, "parallel runs (default: all cores)")
	untilFirst := fs.Bool("until-first", false, "stop at the first violation")
	out := fs.String("out", "", "save the first trace of each cause and summary.json in `DIR`")
	shard := fs.String("shard", "", "run shard `K/N` of the seeds (seed-start+K-1, +N, ...)")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return usageErr(stderr, "explore", err)
	}
	switch {
	case len(pos) > 0:
		return usageErr(stderr, "explore", fmt.Errorf("unexpected argument %q", pos[0]))
	case *protocol == "":
		return usageErr(stderr, "explore", errors.New("--protocol is required"))
	case *runs < 1:
		return usageErr(stderr, "explore", errors.New("--runs must be at least 1"))
	case *workers < 0:
		return usageErr(stderr, "explore", errors.New("--workers must not be negative"))
	case *clients < 1:
		return usageErr(stderr, "explore", errors.New("--clients must be at least 1"))
	case *intensity <= 0 || *intensity > 100:
		return usageErr(stderr, "explore", errors.New("--intensity must be in (0, 100]"))
	}
	k, n, err := parseShard(*shard)
	if err != nil {
		return usageErr(stderr, "explore", err)
	}
	kinds := splitList(*faults)
	if len(kinds) == 1 && kinds[0] == "none" {
		kinds = nil
	}
	cfg := explore.ExploreConfig{
		Base: protocols.Scenario{Protocol: *protocol, Workload: *workload, Clients: *clients,
			FaultKinds: kinds, Topology: *topology, Intensity: *intensity},
		Runs: *runs, SeedStart: *seedStart, Workers: *workers, Shard: k, Shards: n,
		UntilFirst: *untilFirst, Out: *out,
	}
	tuneGC()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s, err := explore.Explore(ctx, cfg, progressBar(stderr, *runs))
	if err != nil {
		return usageErr(stderr, "explore", err)
	}
	if *asJSON {
		b, _ := json.MarshalIndent(s, "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else {
		printSummary(stdout, s, cfg)
	}
	if s.Violating > 0 {
		return exitViolation
	}
	if s.Errors > 0 {
		return exitUsage
	}
	return exitOK
}

// tuneGC trades memory for speed in batch runs: each run allocates a few
// hundred KB that die with it, and the live heap stays small, so the
// collector can run four times less often. GOGC, when set, wins.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}

func parseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("--shard must be K/N with 1 <= K <= N, got %q", s)
	}
	return k, n, nil
}

// progressBar draws on stderr when it is a terminal.
func progressBar(w io.Writer, total int) func(int, *explore.Summary) {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	var last time.Time
	return func(done int, s *explore.Summary) {
		if done != total && time.Since(last) < 100*time.Millisecond {
			return
		}
		last = time.Now()
		const width = 30
		filled := done * width / total
		fmt.Fprintf(f, "\r[%s%s] %d/%d runs, %d violating", strings.Repeat("=", filled), strings.Repeat(" ", width-filled),
			done, total, s.Violating)
		if done == total {
			fmt.Fprintln(f)
		}
	}
}

func printSummary(w io.Writer, s *explore.Summary, cfg explore.ExploreConfig) {
	faults := "none"
	if len(s.Faults) > 0 {
		faults = strings.Join(s.Faults, ",")
	}
	fmt.Fprintf(w, "explored %s / %s, faults %s, topology %s", s.Protocol, s.Workload, faults, s.Topology)
	if s.Shard != "" {
		fmt.Fprintf(w, ", shard %s", s.Shard)
	}
	fmt.Fprintln(w)
	if s.Interrupted {
		fmt.Fprintln(w, "  interrupted: partial summary")
	}
	fmt.Fprintf(w, "  %d runs in %.1f s (%.0f runs/s), %.0fx simulated time over wall time\n",
		s.Runs, s.WallMs/1000, s.RunsPerSec, s.SimPerWall)
	fmt.Fprintf(w, "  %d violating runs, %d inconclusive, %d errors\n", s.Violating, s.Unknown, s.Errors)
	if s.FirstError != "" {
		fmt.Fprintf(w, "  first error: %s\n", s.FirstError)
	}
	for _, c := range s.Causes {
		fmt.Fprintf(w, "  %-17s %-28s %6d runs, first seed %d", c.Property, c.Cause, c.Runs, c.FirstSeed)
		if c.Trace != "" {
			fmt.Fprintf(w, " -> %s", c.Trace)
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "      replay: locksim run --protocol %s --workload %s --seed %d --clients %d --faults %s%s\n",
			s.Protocol, s.Workload, c.FirstSeed, cfg.Base.Clients, orNoneStr(s.Faults), topoFlag(cfg.Base.Topology))
	}
}

func orNoneStr(k []string) string { return strings.Join(orNone(k), ",") }

func topoFlag(t string) string {
	if t == "" {
		return ""
	}
	return " --topology " + t
}

func cmdMerge(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("merge")
	asJSON := fs.Bool("json", false, "print the merged summary as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return usageErr(stderr, "merge", err)
	}
	if len(pos) == 0 {
		return usageErr(stderr, "merge", errors.New("want one or more explore --out DIRs (or summary.json files)"))
	}
	var parts []*explore.Summary
	for _, p := range pos {
		path := p
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			path = p + "/summary.json"
		}
		s, err := explore.ReadSummary(path)
		if err != nil {
			return usageErr(stderr, "merge", err)
		}
		parts = append(parts, s)
	}
	m, err := explore.Merge(parts)
	if err != nil {
		return usageErr(stderr, "merge", err)
	}
	if *asJSON {
		b, _ := json.MarshalIndent(m, "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else {
		printSummary(stdout, m, explore.ExploreConfig{Base: protocols.Scenario{Clients: 3}})
	}
	if m.Violating > 0 {
		return exitViolation
	}
	return exitOK
}

func cmdShrink(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("shrink")
	out := fs.String("o", "", "write the minimal trace to `FILE` (default: FILE.min.json)")
	budget := fs.Int("budget", 500, "maximum number of runs")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return usageErr(stderr, "shrink", err)
	}
	if len(pos) != 1 {
		return usageErr(stderr, "shrink", errors.New("want exactly one trace FILE"))
	}
	if *budget < 1 {
		return usageErr(stderr, "shrink", errors.New("--budget must be at least 1"))
	}
	f, err := traces.Read(pos[0])
	if err != nil {
		return usageErr(stderr, "shrink", err)
	}
	r, err := explore.Shrink(f, *budget)
	if err != nil {
		return usageErr(stderr, "shrink", err)
	}
	dest := *out
	if dest == "" {
		dest = strings.TrimSuffix(pos[0], ".json") + ".min.json"
	}
	if err := traces.Write(dest, r.File); err != nil {
		return usageErr(stderr, "shrink", err)
	}
	if *asJSON {
		b, _ := json.MarshalIndent(map[string]any{"property": r.Property, "cause": r.Cause, "before": r.Before,
			"after": r.After, "runs": r.Runs, "trace": dest, "faults": r.File.Scenario.Faults}, "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else {
		fmt.Fprintf(stdout, "shrunk %s (%s) in %d runs\n  before: %s\n  after:  %s\n",
			r.Property, r.Cause, r.Runs, r.Before, r.After)
		for _, f := range r.File.Scenario.Faults {
			fmt.Fprintf(stdout, "    %s %s at %d ms for %d ms", f.Kind, f.Target, f.AtMs, f.DurMs)
			if f.Value != 0 {
				fmt.Fprintf(stdout, " (value %d)", f.Value)
			}
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "  wrote %s\n  replay: locksim replay %s\n", dest, dest)
	}
	return exitViolation
}
