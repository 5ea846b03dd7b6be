package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/locksim/locksim/traces"
)

func cmdReplay(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("replay")
	var out outputFlags
	out.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return usageErr(stderr, "replay", err)
	}
	if len(pos) != 1 {
		return usageErr(stderr, "replay", errors.New("want exactly one trace FILE"))
	}
	f, err := traces.Read(pos[0])
	if err != nil {
		return usageErr(stderr, "replay", err)
	}
	o, err := traces.Execute(f.Scenario)
	if err != nil {
		return usageErr(stderr, "replay", err)
	}
	if got := o.File.TraceSHA256; got != f.TraceSHA256 {
		return usageErr(stderr, "replay", fmt.Errorf("trace hash mismatch: recorded %s, replayed %s", short(f.TraceSHA256), short(got)))
	}
	return finish(o, "locksim replay "+pos[0], out, stdout, stderr)
}

func short(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return h
}
