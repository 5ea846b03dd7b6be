package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/locksim/locksim/checker"
	"io"
	"math"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces/explore"
)

// cmdMatrix runs the safety matrix: protocols as rows, fault kinds as
// columns, one table per workload; each cell is explore's summary of the
// cell at --runs seeds: unsafe with its rate and first failing seed, or
// not found with the rate it rules out.
func cmdMatrix(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("matrix", stdout)
	runs := fs.Int("runs", explore.DefaultMatrixRuns, "seeds per cell")
	failOn := registerFailOn(fs)
	first := fs.Uint64("seed", defaultSeed, "first seed of every cell")
	workload := fs.String("workload", "unique-name", "comma-separated workloads, or \"all\"")
	protos := fs.String("protocols", "", "comma-separated protocols (default: all)")
	files := registerProtocolFiles(fs)
	faults := fs.String("faults", "", "comma-separated fault kinds, \"none\" included (default: none and every kind)")
	clients := fs.Int("clients", 0, "number of client processes (default: drawn per seed, as explore does)")
	workers := fs.Int("workers", 0, "parallel runs (default: the number of CPUs)")
	verify := fs.Bool("verify", false, "add each cell's bounded exhaustive verdict (as locksim verify, with --seed as its seed)")
	fs.Bool("rates", true, "ignored: every cell runs all its seeds and shows its rate (kept for old scripts)")
	asJSON := fs.Bool("json", false, "print the matrices as JSON (one array, one per workload)")
	pos, err := parse(fs, args)
	if err != nil {
		return usageErr(stderr, "matrix", err)
	}
	switch {
	case len(pos) > 0:
		return usageErr(stderr, "matrix", fmt.Errorf("unexpected argument %q", pos[0]))
	case *runs < 1 || *runs > 100000:
		return usageErr(stderr, "matrix", errors.New("--runs must be between 1 and 100000"))
	case *clients < 0 || fs.given("clients") && *clients == 0:
		return usageErr(stderr, "matrix", errors.New("--clients must be at least 1"))
	case *workers < 0:
		return usageErr(stderr, "matrix", errors.New("--workers must not be negative"))
	}
	workloads, err := splitList("workload", *workload)
	if err != nil {
		return usageErr(stderr, "matrix", err)
	}
	protoList, err := splitList("protocols", *protos)
	if err != nil {
		return usageErr(stderr, "matrix", err)
	}
	faultList, err := splitList("faults", *faults)
	if err != nil {
		return usageErr(stderr, "matrix", err)
	}
	if *workload == "all" {
		workloads = nil
		for _, w := range protocols.Workloads() {
			workloads = append(workloads, w.Name)
		}
	}
	if len(workloads) == 0 {
		return usageErr(stderr, "matrix", errors.New("--workload names no workload"))
	}
	sig := windDown()
	defer sig.stop()
	var ms []*explore.Matrix
	for _, w := range workloads {
		m, err := explore.RunMatrix(sig.ctx, explore.MatrixOptions{
			Protocols: protoList, Files: *files, Faults: faultList, Workload: w,
			Runs: *runs, FirstSeed: *first, Clients: *clients, Workers: capWorkers(*workers, math.MaxInt), Verify: *verify,
		})
		if code, ok := sig.interrupted(stderr, "matrix"); ok {
			return code
		}
		if err != nil {
			return usageErr(stderr, "matrix", err)
		}
		ms = append(ms, m)
	}
	switch {
	case *asJSON:
		b, _ := json.MarshalIndent(ms, "", "  ")
		fmt.Fprintln(stdout, string(b))
	default:
		for i, m := range ms {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			fmt.Fprint(stdout, m.Text())
		}
	}
	return matrixExit(ms, *failOn)
}

// matrixExit is the exit status of the matrices' cells (cellExit).
func matrixExit(ms []*explore.Matrix, failOn checker.FailOn) int {
	code := exitOK
	for _, m := range ms {
		for _, row := range m.Rows {
			for _, c := range row {
				code = cellExit(code, c.Verdict, c.Cause, failOn)
			}
		}
	}
	return code
}

// cellExit folds one cell's verdict into the exit status so far, as run
// ranks its codes: 2 when a cell's runs could not be built or run, else 1
// when a cell is unsafe (in a property failOn fails on), else 3 when one
// is inconclusive, else 0.
func cellExit(code int, verdict, cause string, failOn checker.FailOn) int {
	switch {
	case code == exitUsage || verdict == explore.CellError:
		return exitUsage
	case verdict == explore.CellUnsafe || verdict == explore.CellUnsafeNoFault:
		if failOn.Fails([]string{explore.CauseProperty(cause)}) {
			return exitViolation
		}
	case verdict == explore.CellUnknown && code == exitOK:
		return exitUnknown
	}
	return code
}
