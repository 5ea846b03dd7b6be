package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/locksim/locksim/traces/explore"
)

// cmdMatrix runs the safety matrix: protocols as rows, fault kinds as
// columns, each cell safe or unsafe with its first failing seed.
func cmdMatrix(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("matrix")
	runs := fs.Int("runs", 20, "seeds per cell")
	first := fs.Uint64("seed", 0, "first seed of every cell")
	workload := fs.String("workload", "unique-name", "workload")
	protos := fs.String("protocols", "", "comma-separated protocols (default: all)")
	faults := fs.String("faults", "", "comma-separated fault kinds, \"none\" included (default: none and every kind)")
	clients := fs.Int("clients", 3, "number of client processes")
	workers := fs.Int("workers", 0, "parallel runs (default: the number of CPUs)")
	asJSON := fs.Bool("json", false, "print the matrix as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return usageErr(stderr, "matrix", err)
	}
	switch {
	case len(pos) > 0:
		return usageErr(stderr, "matrix", fmt.Errorf("unexpected argument %q", pos[0]))
	case *runs < 1 || *runs > 100000:
		return usageErr(stderr, "matrix", errors.New("--runs must be between 1 and 100000"))
	case *clients < 1:
		return usageErr(stderr, "matrix", errors.New("--clients must be at least 1"))
	case *workers < 0:
		return usageErr(stderr, "matrix", errors.New("--workers must not be negative"))
	}
	tuneGC()
	m, err := explore.RunMatrix(explore.MatrixOptions{
		Protocols: splitList(*protos), Faults: splitList(*faults), Workload: *workload,
		Runs: *runs, FirstSeed: *first, Clients: *clients, Workers: *workers,
	})
	if err != nil {
		return usageErr(stderr, "matrix", err)
	}
	if *asJSON {
		b, _ := json.MarshalIndent(m, "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else {
		fmt.Fprint(stdout, m.Text())
	}
	return matrixExit(m)
}

// matrixExit follows the run command's codes: 1 when a cell is unsafe, 3
// when none is but a check was inconclusive, 2 when a cell's runs could
// not be built.
func matrixExit(m *explore.Matrix) int {
	code := exitOK
	for _, row := range m.Rows {
		for _, c := range row {
			switch c.Verdict {
			case explore.CellError:
				return exitUsage
			case explore.CellUnsafe:
				code = exitViolation
			case explore.CellUnknown:
				if code == exitOK {
					code = exitUnknown
				}
			}
		}
	}
	return code
}
