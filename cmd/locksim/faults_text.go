package main

import (
	"fmt"
	"io"

	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/explore"
)

// maxFaultLines is how many faults the human output lists.
const maxFaultLines = 8

// printFaults lists a run's faults as they happened, numbered as the
// explanations cite them: an anchored fault at the virtual time it fired
// (read from the trace), with its anchor.
func printFaults(w io.Writer, f *traces.File, indent string) {
	lines := traces.DescribeFaults(f)
	for i, l := range lines {
		if i == maxFaultLines {
			fmt.Fprintf(w, "%s... and %s more (in the trace's scenario)\n", indent, explore.Plural(len(lines)-i, "fault"))
			break
		}
		fmt.Fprintf(w, "%sfault #%d: %s\n", indent, i+1, l)
	}
}
