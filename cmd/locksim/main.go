// Command locksim runs lock protocols in the simulator, checks the
// histories and explains violations. See `locksim help`.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces"
)

// Exit codes.
const (
	exitOK        = 0
	exitViolation = 1
	exitUsage     = 2
	exitUnknown   = 3
	exitInternal  = 4
)

const exitCodesLine = "Exit status: 0 no violation, 1 a violation was found, 2 bad usage or input, 3 inconclusive, 4 internal error;\n" +
	"each command's help lists the ones it returns. Stopped by Ctrl-C or SIGTERM, a command exits 130 or 143\n(explore prints its partial summary and exits with its status)."

// exitCodes says, per command, the exit statuses it can return and what
// each means there.
var exitCodes = map[string]string{
	"run": "0 no violation, 1 a violation was found, 2 bad usage or input,\n" +
		"3 inconclusive (a budget stopped the run, or the checker could not decide), 4 internal error.",
	"replay": "0 no violation, 1 a violation was found, 2 bad usage or input (a trace that fails its checks\n" +
		"included), 3 inconclusive, 4 internal error.",
	"check": "0 no violation, 1 a violation was found, 2 bad usage or input (FILE:LINE: reason),\n" +
		"3 inconclusive (the checker's step budget ran out), 4 internal error.",
	"view": "0 the page was written, 2 bad usage or input, 4 internal error.",
	"list": "0 listed, 2 bad usage, 4 internal error.",
	"explore": "0 no run violated and every run was judged, 1 a run violated, 2 bad usage or input,\n" +
		"3 no run violated but some were inconclusive (a budget stopped them, or the checker could not decide;\n" +
		"the summary says which and how many), 4 a run failed or internal error.",
	"shrink": "1 the minimal trace was written (it still violates: that is what was kept), 2 bad usage or\n" +
		"input (a trace without a violation included), 4 internal error.",
	"merge": "0 no merged run violated and every one was judged, 1 a merged run violated, 2 bad usage or input,\n" +
		"3 no merged run violated but some were inconclusive, 4 a shard counted failed runs, or internal error.",
	"matrix": "0 every cell safe, 1 a cell is unsafe, 2 bad usage or input, or a cell's runs could not be built,\n" +
		"3 no cell unsafe but one inconclusive, 4 internal error.",
	"verify": "0 every cell safe, 1 a cell is unsafe, 2 bad usage or input, or a cell's runs failed,\n" +
		"3 no cell unsafe but one inconclusive (a budget stopped a run, or the checker could not decide; its claim says which), 4 internal error.",
}

// exitCodesOf is the exit-status paragraph of command name's help.
func exitCodesOf(name string) string {
	if s, ok := exitCodes[name]; ok {
		return "Exit status: " + s
	}
	return exitCodesLine
}

// defaultSeed is the seed of run and the first seed of explore and matrix.
const defaultSeed = 1

// main is the one place that tunes the process (library packages never
// do): the batch commands run with the collector at GOGC=400 unless GOGC
// is set. Each run allocates a few hundred KB that die with it and the
// live heap stays small, so collecting four times less often buys
// throughput for little memory. A single run (run, replay) keeps Go's
// default: a 1,000-client run's live heap is most of a gigabyte.
func main() {
	if len(os.Args) > 1 && batchCommands[os.Args[1]] && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	stop := cleanOnSignal()
	code := Main(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// batchCommands are the commands main tunes the collector for.
var batchCommands = map[string]bool{"explore": true, "matrix": true, "verify": true}

// batchGCNote tells a batch command's user how main tunes the collector.
const batchGCNote = "Runs with the Go collector at GOGC=400 (many short runs, little live memory) unless GOGC is set."

type command struct {
	name    string
	summary string
	usage   string
	example string
	notes   string
	run     func(args []string, stdout, stderr io.Writer) int
}

var scenarioLimits = "Limits: 1 to 1,000 clients, 1 to 64 threads per client, 1 to 100,000 operations per thread;\n" +
	fmt.Sprintf("--intensity in (0, 100]; --max-events from 1 to %d (default scaled with the scenario, %d to %d).",
		protocols.MaxEventBudget, protocols.DefaultEventBudget, protocols.ScaledEventBudgetCap)

func commands() []command {
	return []command{
		{"run", "run one scenario, check it, explain violations",
			"locksim run [--scenario NAME | --protocol NAME] [flags] [--trace FILE] [--html FILE] [--json]",
			"locksim run --protocol setnx-del --faults gc-pause --seed 7 --trace trace.json",
			"Without --protocol, runs the reference scenario NAME (default " + defaultReferenceName + "); scenario flags given with --scenario change that scenario as --print-scenario shows it (--fault replaces its faults; --faults, --intensity, --swarm and --anchor-pct, which draw faults, are refused).\n" + scenarioLimits, cmdRun},
		{"replay", "re-run a trace file's scenario and verify its hash",
			"locksim replay FILE [--trace FILE] [--html FILE] [--json]", "locksim replay trace.json",
			"The file's scenario, events and report are checked against its hash before it is trusted, and a scenario whose size needs more than --max-events events is refused unrun.\n" + inputLimitNote, cmdReplay},
		{"check", "check a lock history recorded outside locksim (JSON Lines, or Jepsen's history.edn) and explain violations",
			"locksim check [--format jsonl|edn] [--html FILE] [--fail-on PROPS] HISTORY",
			"locksim check history.jsonl --html timeline.html",
			"HISTORY - reads standard input. Times are nanoseconds from one clock shared by every process (see docs/check.md).\n" +
				"Bad input is one line, FILE:LINE: reason, and exit status 2.\n" + inputLimitNote, cmdCheck},
		{"view", "write a trace file's HTML timeline (self-contained, with porcupine's linearization)",
			"locksim view FILE -o OUT.html", "locksim view trace.json -o trace.html", inputLimitNote, cmdView},
		{"matrix", "run every protocol under every fault kind: unsafe with its first failing seed (--rates: and rate), or the rate it rules out",
			"locksim matrix [flags]", "locksim matrix --protocols setnx-del,redisson --faults none,gc-pause,failover --verify", batchGCNote, cmdMatrix},
		{"verify", "bounded exhaustive check: every single fault of a kind at every step of a small scenario",
			"locksim verify [--protocols P,...] [--faults F,...] [flags]",
			"locksim verify --protocols setnx-del --faults gc-pause", batchGCNote, cmdVerify},
		{"explore", "run many seeds on all cores; violations by cause, first trace of each saved",
			"locksim explore --protocol NAME [flags]",
			"locksim explore --protocol setnx-del --faults gc-pause --runs 10000 --out out/ --html out/report.html",
			"Ctrl-C or SIGTERM stops it with a partial summary (written to --out too).\n" +
				"The --html report plots the violation rate against each drawn fault parameter; its numbers are the summary's.\n" +
				"--workers is capped at --runs and the number of cores. One explore at a time owns an --out directory.\n" +
				scenarioLimits + "\n" + batchGCNote, cmdExplore},
		{"shrink", "make a failing trace's scenario minimal, keeping its cause",
			"locksim shrink FILE [-o OUT] [--budget N] [--json]",
			"locksim shrink out/mutual-exclusion-premature-expiry.json -o min.json", inputLimitNote, cmdShrink},
		{"merge", "combine the summaries of sharded explore runs",
			"locksim merge DIR|summary.json... [--json] [--html FILE]", "locksim merge shard1/ shard2/ --html merged.html",
			"Shards must share one scenario template and have disjoint seeds.\n" + inputLimitNote, cmdMerge},
		{"list", "list protocols, workloads, faults and scenarios", "locksim list [--json]", "locksim list --json", "", cmdList},
		{"help", "show the commands, or one command's usage and flags", "locksim help [CMD]", "locksim help explore", "", nil},
	}
}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// Main runs the CLI with args and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			code = internalError(stderr, r)
		}
	}()
	if len(args) == 0 {
		return cmdRun(nil, stdout, stderr)
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		return cmdHelp(args[1:], stdout, stderr)
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, versionLine())
		return exitOK
	}
	if c, ok := lookupCommand(name); ok && c.run != nil {
		return c.run(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "%s\n", withSuggestion(fmt.Sprintf("locksim: unknown command %q (see locksim help)", name)))
	return exitUsage
}

// internalError reports a panic as a bug in locksim, on one line.
func internalError(stderr io.Writer, r any) int {
	first, _, _ := strings.Cut(fmt.Sprint(r), "\n")
	fmt.Fprintf(stderr, "locksim: internal error (a bug in locksim, please report it with the command line): %s\n", first)
	return exitInternal
}

func cmdHelp(args []string, stdout, stderr io.Writer) int {
	switch len(args) {
	case 0:
		help(stdout)
		return exitOK
	case 1:
		if args[0] == "concepts" {
			conceptsTopic(stdout)
			return exitOK
		}
		c, ok := lookupCommand(args[0])
		if !ok {
			return usageErr(stderr, "help", fmt.Errorf("unknown command %q (or topic: concepts)", args[0]))
		}
		if c.run == nil {
			help(stdout)
			return exitOK
		}
		return c.run([]string{"--help"}, stdout, stderr)
	}
	return usageErr(stderr, "help", errors.New("want at most one command name"))
}

func help(w io.Writer) {
	fmt.Fprintln(w, "locksim: find the bugs in distributed locks in a deterministic simulator.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n           e.g. %s\n", c.name, c.summary, c.example)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "`locksim help CMD` or `locksim CMD --help` shows a command's flags. `locksim --version` prints the version.")
	fmt.Fprintln(w, "`locksim help concepts` explains the words the output uses (scenario, trace, verdict, cause, damage, ...).")
	fmt.Fprintf(w, "The default seed is %d everywhere (run --seed, explore --seed-start, matrix --seed).\n", defaultSeed)
	fmt.Fprintln(w, exitCodesLine)
}

// versionLine is the module version (from the build) and the Go version.
func versionLine() string {
	v := "(devel)"
	mod := "github.com/locksim/locksim"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path != "" {
			mod = bi.Main.Path
		}
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && v == "(devel)" {
				v += " " + s.Value[:min(12, len(s.Value))]
			}
		}
	}
	return fmt.Sprintf("locksim %s %s, %s %s/%s", mod, v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func usageErr(stderr io.Writer, cmd string, err error) int {
	if errors.Is(err, errHelp) {
		return exitOK
	}
	if traces.IsInternal(err) {
		return internalError(stderr, err)
	}
	fmt.Fprintf(stderr, "locksim %s: %v\n", cmd, withSuggestion(oneLine(err.Error())))
	return exitUsage
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
