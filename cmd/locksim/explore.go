package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces/explore"
)

func cmdExplore(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("explore", stdout)
	base := protocols.Scenario{Swarm: true} // --swarm=false turns it off
	explore.RegisterScenarioFlags(fs.FlagSet, &base, "seed")
	runs := fs.Int("runs", 1000, "number of seeds to run")
	seedStart := fs.Uint64("seed-start", defaultSeed, "first seed")
	workers := fs.Int("workers", 0, "parallel runs (default: all cores)")
	untilFirst := fs.Bool("until-first", false, "stop at the first violation")
	out := fs.String("out", "", "save the first trace of each cause and summary.json in `DIR` (made if missing; refused if it holds an earlier explore's output)")
	force := fs.Bool("force", false, "with --out, first remove an earlier explore's summary, traces and timelines there (only those)")
	shard := fs.String("shard", "", "run shard `K/N` of the seeds (seed-start+K-1, +N, ...)")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	failOn := registerFailOn(fs)
	html := fs.String("html", "", "write the HTML report to `FILE` (a regular file; with --out, each cause's first trace gets its timeline next to it, linked from the report)")
	pos, err := parse(fs, args)
	if err != nil {
		return usageErr(stderr, "explore", err)
	}
	switch {
	case len(pos) > 0:
		return usageErr(stderr, "explore", fmt.Errorf("unexpected argument %q", pos[0]))
	case base.Protocol == "" && base.ProtocolFile == nil:
		return usageErr(stderr, "explore", errors.New("--protocol or --protocol-file is required"))
	case *runs < 1:
		return usageErr(stderr, "explore", errors.New("--runs must be at least 1"))
	case *workers < 0:
		return usageErr(stderr, "explore", errors.New("--workers must not be negative"))
	}
	k, n, err := parseShard(*shard)
	if err != nil {
		return usageErr(stderr, "explore", err)
	}
	if *out != "" && !*force {
		// A used --out is refused first, before checking the report's
		// path makes (and removes) a file there.
		if err := earlierOut(*out, false); err != nil {
			if busyOut(*out) {
				err = inUse(*out)
			}
			return usageErr(stderr, "explore", err)
		}
	}
	if err := checkReport(*html, nil, outDirs(*out)); err != nil {
		return usageErr(stderr, "explore", err)
	}
	cfg := explore.ExploreConfig{
		Base: base, Runs: *runs, SeedStart: *seedStart, Workers: *workers, Shard: k, Shards: n,
		UntilFirst: *untilFirst, Out: *out,
	}
	ctx, unlock, err := guardExplore(&cfg, *force)
	if err != nil {
		return usageErr(stderr, "explore", err)
	}
	defer unlock()
	s, err := explore.Explore(ctx, cfg, progressBar(stderr, *runs))
	if err != nil {
		return usageErr(stderr, "explore", err)
	}
	if *html != "" {
		notes := stdout // on stderr when stdout carries JSON
		if *asJSON {
			notes = stderr
		}
		if err := exploreReport(*html, s, *out != "", notes); err != nil {
			return usageErr(stderr, "explore", err)
		}
	}
	if *asJSON {
		b, _ := json.MarshalIndent(s, "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else {
		printSummary(stdout, s)
	}
	return exploreExit(s, *failOn)
}

// exploreExit is the exit status of an exploration (explore's, merge's),
// as Jepsen composes its checkers' results and as matrix does its cells:
// 1 when a run violated (a property failOn fails on), else 4 when a run
// failed, else 3 when a run was not judged (inconclusive: a budget
// stopped it, or the checker could not decide), else 0.
func exploreExit(s *explore.Summary, failOn checker.FailOn) int {
	switch {
	case failOn.Fails(s.Broken()):
		return exitViolation
	case s.Errors > 0:
		return exitInternal
	case s.Unknown > 0:
		return exitUnknown
	}
	return exitOK
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

func printSummary(w io.Writer, s *explore.Summary) {
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
	fmt.Fprintf(w, "  %s\n", s.Verdict.Text)
	if s.UnsafeRuns > 0 {
		fmt.Fprintf(w, "    first unsafe: %s\n", s.UnsafeCause)
	}
	if len(s.NA) > 0 && s.Runs > 0 {
		fmt.Fprintf(w, "  left out (n/a): %s\n", strings.Join(s.NA, "; "))
	}
	if s.Runs == 0 {
		return
	}
	fmt.Fprintf(w, "  %s in %.1f s (%.0f runs/s), %.0fx simulated time over wall time\n",
		explore.Plural(s.Runs, "run"), s.WallMs/1000, s.RunsPerSec, s.SimPerWall)
	fmt.Fprintf(w, "  %d with a violation reported, %d inconclusive (not judged), %s, %d with none of these\n",
		s.Violating, s.Unknown, explore.Plural(s.Errors, "error"), s.Runs-s.Violating-s.Unknown-s.Errors)
	if s.Violating != s.UnsafeRuns {
		fmt.Fprintf(w, "    (%d judged unsafe, as matrix and verify judge: a fenced lock's overlaps alone and writes the data store lost are not the lock's failure)\n",
			s.UnsafeRuns)
	}
	if len(s.Coverage) > 0 {
		var parts []string
		for _, c := range s.Coverage {
			parts = append(parts, fmt.Sprintf("%s %d", c.State, c.Runs))
		}
		fmt.Fprintf(w, "  dangerous states reached (runs): %s\n", strings.Join(parts, ", "))
	}
	if s.Violating > 0 {
		fmt.Fprintf(w, "  of the %d with a violation: %d where the lock failed, %d where only the data store lost a write (no lock could keep it)\n",
			s.Violating, s.LockViolated, s.DataLost)
	}
	if line := damageLine(s.Damage.Sum); line != "" || s.Damage.Sum.StaleWritesRejected > 0 {
		if line == "" {
			line = "none"
		} else {
			line += fmt.Sprintf(" (in %s)", explore.Plural(s.Damage.RunsWithDamage, "run"))
		}
		if n := s.Damage.Sum.StaleWritesRejected; n > 0 {
			line += "; " + fencingLine(n)
		}
		fmt.Fprintf(w, "  damage to the protected data: %s\n", line)
		if s.Damage.Sum.StaleWritesAccepted > 0 {
			fmt.Fprintf(w, "    (%s)\n", checker.StaleWriteGloss)
		}
		if n := s.Damage.Sum.LateWritesFirst; n > 0 {
			fmt.Fprintf(w, "    %s\n", lateFirstLine(n))
		}
	}
	if n := s.Damage.HarmlessStaleWrites; n > 0 {
		fmt.Fprintf(w, "  %s\n", harmlessLine(n))
	}
	if s.FirstError != "" {
		fmt.Fprintf(w, "  first error: %s\n", s.FirstError)
	}
	for _, p := range checker.Properties() {
		heading := false
		for _, c := range s.Causes {
			if c.Property != p {
				continue
			}
			if !heading {
				fmt.Fprintf(w, "  %s\n", checker.Heading(p))
				heading = true
			}
			fmt.Fprintf(w, "    %-32s %6d runs, first seed %d", c.Cause, c.Runs, c.FirstSeed)
			if c.Trace != "" {
				fmt.Fprintf(w, " -> %s", c.Trace)
			}
			fmt.Fprintln(w)
			if c.Replay != "" {
				fmt.Fprintf(w, "      replay: %s\n", c.Replay)
			}
		}
	}
}
