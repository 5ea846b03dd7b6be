// Command locksim runs lock protocols in the simulator, checks the
// histories and explains violations. See `locksim help`.
package main

import (
	"fmt"
	"io"
	"os"
)

// Exit codes.
const (
	exitOK        = 0
	exitViolation = 1
	exitUsage     = 2
	exitUnknown   = 3
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}

type command struct {
	name    string
	summary string
	example string
	run     func(args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"run", "run one scenario, check it, explain violations", "locksim run --protocol setnx-del --faults gc-pause --seed 7", cmdRun},
		{"replay", "re-run a trace file's scenario and verify its hash", "locksim replay out/trace.json", cmdReplay},
		{"view", "write a trace file's HTML timeline (self-contained, with porcupine's linearization)", "locksim view out/trace.json -o out/trace.html", cmdView},
		{"matrix", "run every protocol under every fault kind: unsafe with its first failing seed and rate, or the rate it rules out", "locksim matrix --workload all --verify", cmdMatrix},
		{"verify", "bounded exhaustive check: every single fault of a kind at every step of a small scenario", "locksim verify --protocols setnx-del --faults gc-pause", cmdVerify},
		{"explore", "run many seeds on all cores; violations by cause, first trace of each saved", "locksim explore --protocol setnx-del --faults gc-pause --runs 10000 --out out/", cmdExplore},
		{"shrink", "make a failing trace's scenario minimal, keeping its cause", "locksim shrink out/mutual-exclusion-premature-expiry.json -o min.json", cmdShrink},
		{"merge", "combine the summaries of sharded explore runs", "locksim merge shard1/ shard2/", cmdMerge},
		{"list", "list protocols, workloads, faults and scenarios", "locksim list --json", cmdList},
		{"help", "show this help", "locksim help", nil},
	}
}

// Main runs the CLI with args and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "locksim: internal error: %v\n", r)
			code = exitUsage
		}
	}()
	if len(args) == 0 {
		return cmdRun(nil, stdout, stderr)
	}
	name := args[0]
	if name == "help" || name == "-h" || name == "--help" {
		help(stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == name && c.run != nil {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "locksim: unknown command %q (see locksim help)\n", name)
	return exitUsage
}

func help(w io.Writer) {
	fmt.Fprintln(w, "locksim: find the bugs in distributed locks in a deterministic simulator.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n           e.g. %s\n", c.name, c.summary, c.example)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Exit codes: 0 no violation, 1 violation, 2 bad usage or input, 3 checker inconclusive.")
}

func usageErr(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "locksim %s: %v\n", cmd, err)
	return exitUsage
}
