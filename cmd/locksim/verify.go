package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/locksim/locksim/checker"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces/explore"
)

// cmdVerify runs the bounded exhaustive check: every single fault of each
// kind at every step of the fault-free run of a small scope.
func cmdVerify(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("verify", stdout)
	protos := fs.String("protocols", "", "comma-separated protocols (default: all)")
	files := registerProtocolFiles(fs)
	faults := fs.String("faults", "", "comma-separated fault kinds (default: every kind)")
	workload := fs.String("workload", "unique-name", "workload")
	clients := fs.Int("clients", explore.DefaultVerifyClients, "client processes")
	ops := fs.Int("ops", explore.DefaultVerifyOps, "operations per client")
	seed := fs.Uint64("seed", defaultSeed, "noise seed of every run")
	offsets := fs.String("offsets", "0,1", "comma-separated offsets in ms after each step")
	depth := fs.Int("depth", 1, "most faults per placement: 1, or 2 (each fault also with a standing split, and two faults of the kind within a lease)")
	pairBudget := fs.Int("pair-budget", explore.DefaultPairBudget, "with --depth 2, the most two-fault placements per cell, shared evenly by its holds and down-afters (the claim says how many it tried)")
	workers := fs.Int("workers", 0, "parallel runs (default: the number of CPUs)")
	var budget protocols.Scenario // holds --max-events alone
	explore.RegisterScenarioFlag(fs.FlagSet, &budget, "max-events")
	failOn := registerFailOn(fs)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return usageErr(stderr, "verify", err)
	}
	offList, err := splitList("offsets", *offsets)
	if err != nil {
		return usageErr(stderr, "verify", err)
	}
	protoList, err := splitList("protocols", *protos)
	if err != nil {
		return usageErr(stderr, "verify", err)
	}
	faultList, err := splitList("faults", *faults)
	if err != nil {
		return usageErr(stderr, "verify", err)
	}
	var offs []int64
	for _, s := range offList {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return usageErr(stderr, "verify", fmt.Errorf("--offsets: %q is not a non-negative number of ms", s))
		}
		offs = append(offs, n)
	}
	switch {
	case len(pos) > 0:
		return usageErr(stderr, "verify", fmt.Errorf("unexpected argument %q", pos[0]))
	case *clients < 1 || *clients > 4:
		return usageErr(stderr, "verify", errors.New("--clients must be between 1 and 4 (the scope is exhaustive)"))
	case *ops < 1 || *ops > 3:
		return usageErr(stderr, "verify", errors.New("--ops must be between 1 and 3 (the scope is exhaustive)"))
	case *depth < 1 || *depth > 2:
		return usageErr(stderr, "verify", errors.New("--depth must be 1 or 2"))
	case *pairBudget < 1:
		return usageErr(stderr, "verify", errors.New("--pair-budget must be at least 1"))
	case len(offs) == 0:
		return usageErr(stderr, "verify", errors.New("--offsets must name at least one offset"))
	case *workers < 0:
		return usageErr(stderr, "verify", errors.New("--workers must not be negative"))
	}
	sig := windDown()
	defer sig.stop()
	start := time.Now()
	v, err := explore.Verify(sig.ctx, explore.VerifyOptions{Protocols: protoList, Files: *files, Faults: faultList,
		Workload: *workload, Clients: *clients, Ops: *ops, Seed: *seed, Offsets: offs, Workers: capWorkers(*workers, math.MaxInt),
		Depth: *depth, PairBudget: *pairBudget, MaxEvents: budget.MaxEvents})
	if code, ok := sig.interrupted(stderr, "verify"); ok {
		return code
	}
	if err != nil {
		return usageErr(stderr, "verify", err)
	}
	if *asJSON {
		b, _ := json.MarshalIndent(v, "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else {
		printVerification(stdout, v, time.Since(start))
	}
	return verifyExit(v, *failOn)
}

func printVerification(w io.Writer, v *explore.Verification, wall time.Duration) {
	runs := 0
	for _, c := range v.Cells {
		runs += c.Runs
		fmt.Fprintf(w, "%s / %s", c.Protocol, c.Fault)
		if c.Topology != "" {
			fmt.Fprintf(w, " (%s)", c.Topology)
		}
		fmt.Fprintf(w, ": %s\n", c.Claim)
		if c.Replay != "" {
			fmt.Fprintf(w, "    replay: %s\n", c.Replay)
		}
	}
	offs := make([]string, len(v.Offsets))
	for i, o := range v.Offsets {
		offs[i] = fmt.Sprint(o)
	}
	fmt.Fprintf(w, "%s runs in %.1f s (workload %s, %d clients x %d ops, seed %d, offsets %s ms, up to %s a run)\n",
		explore.Thousands(runs), wall.Seconds(), v.Workload, v.Clients, v.Ops, v.Seed, strings.Join(offs, ","), explore.Plural(v.Depth, "fault"))
	fmt.Fprintln(w, "scope: verify places every single fault at every step of the bound's runs; explore and matrix draw the same cell's")
	fmt.Fprintln(w, "scenarios (more clients, other holds, random faults): a cell verified here can still be unsafe there, outside the bound")
}

// verifyExit is the exit status of the cells (cellExit).
func verifyExit(v *explore.Verification, failOn checker.FailOn) int {
	code := exitOK
	for _, c := range v.Cells {
		code = cellExit(code, c.Verdict, c.Cause, failOn)
	}
	return code
}
