package main

import (
	"errors"
	"io"

	"github.com/locksim/locksim/traces"
)

func cmdReplay(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("replay", stdout)
	var out outputFlags
	out.register(fs)
	maxMB := registerMaxInput(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return usageErr(stderr, "replay", err)
	}
	if len(pos) != 1 {
		return usageErr(stderr, "replay", errors.New("want exactly one trace FILE"))
	}
	if err := checkOutputs(pos, out.trace, out.html); err != nil {
		return usageErr(stderr, "replay", err)
	}
	f, err := readTrace(pos[0], *maxMB)
	if err != nil {
		return usageErr(stderr, "replay", err)
	}
	o, err := traces.Verify(f)
	if err != nil {
		return usageErr(stderr, "replay", err)
	}
	return finish(o, "locksim replay "+pos[0], out, stdout, stderr)
}

// readTrace reads a trace file under the --max-input-mb cap; the reader
// checks its events against its hash.
func readTrace(path string, maxMB int64) (*traces.File, error) {
	limit, err := maxInputBytes(maxMB)
	if err != nil {
		return nil, err
	}
	return traces.ReadLimit(path, limit)
}
