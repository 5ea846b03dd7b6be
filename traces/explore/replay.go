package explore

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/locksim/locksim/internal/suggest"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// The one replay-command builder. scenarioFlags are the flags of
// `locksim run` that shape a scenario; the run command reads its flags
// through them and every printed replay command (run, explore, matrix,
// merge, shrink, verify) is written through them, so the two cannot drift
// apart. A command is printed only after parsing it back gave the same
// normalized scenario.

// scenarioFlag is one scenario-shaping flag: get renders the field (nil:
// not set), set parses one occurrence into it.
type scenarioFlag struct {
	name, usage string
	keep        bool // always printed, even when the default would do
	boolean     bool // given alone (--swarm), or --swarm=false
	get         func(sc *protocols.Scenario) []string
	set         func(sc *protocols.Scenario, v string) error
}

var scenarioFlags = []scenarioFlag{
	{name: "protocol", usage: "lock protocol (see locksim list)", keep: true,
		get: func(sc *protocols.Scenario) []string {
			if sc.ProtocolFile != nil {
				return nil // the file names it
			}
			return nonEmpty(sc.Protocol)
		},
		set: func(sc *protocols.Scenario, v string) error { sc.Protocol = v; return nil }},
	{name: "protocol-file", usage: "run the lock described in `FILE` instead of a catalog protocol (docs/protocol-files.md)", keep: true,
		get: func(sc *protocols.Scenario) []string {
			if sc.ProtocolFile == nil {
				return nil
			}
			return []string{sc.ProtocolFile.Path}
		},
		set: func(sc *protocols.Scenario, v string) error {
			f, err := protocols.LoadProtocolFile(v)
			if err != nil {
				return errors.New(strings.TrimPrefix(err.Error(), v+": ")) // the flag's message names the file
			}
			sc.ProtocolFile = f
			return nil
		}},
	{name: "workload", usage: "workload (default unique-name)", keep: true,
		get: func(sc *protocols.Scenario) []string { return nonEmpty(sc.Workload) },
		set: func(sc *protocols.Scenario, v string) error { sc.Workload = v; return nil }},
	{name: "seed", usage: "seed (default 1)", keep: true,
		get: func(sc *protocols.Scenario) []string { return []string{strconv.FormatUint(sc.Seed, 10)} },
		set: func(sc *protocols.Scenario, v string) (err error) {
			sc.Seed, err = strconv.ParseUint(v, 10, 64)
			return
		}},
	intFlag("clients", "client processes (default 3)", true, 1, func(sc *protocols.Scenario) *int { return &sc.Clients }),
	{name: "client-names", usage: "comma-separated names of the clients (default c1..cN)",
		get: func(sc *protocols.Scenario) []string { return nonEmpty(strings.Join(sc.ClientNames, ",")) },
		set: func(sc *protocols.Scenario, v string) error { sc.ClientNames = strings.Split(v, ","); return nil }},
	intFlag("threads", "threads per client (default 1)", false, 1, func(sc *protocols.Scenario) *int { return &sc.Threads }),
	intFlag("ops", "operations per thread (default 4)", false, 1, func(sc *protocols.Scenario) *int { return &sc.Ops }),
	msFlag("lease-ms", "lock lease (default: the protocol's)", func(sc *protocols.Scenario) *int64 { return &sc.LeaseMs }),
	msFlag("work-ms", "work under the lock (default: the workload's)", func(sc *protocols.Scenario) *int64 { return &sc.WorkMs }),
	msFlag("think-ms", "pause between operations (default 200)", func(sc *protocols.Scenario) *int64 { return &sc.ThinkMs }),
	msFlag("stagger-ms", "client i starts i times this late", func(sc *protocols.Scenario) *int64 { return &sc.StaggerMs }),
	{name: "topology", usage: "single, replicated or independent (default: the protocol's)",
		get: func(sc *protocols.Scenario) []string { return nonEmpty(sc.Topology) },
		set: func(sc *protocols.Scenario, v string) error { sc.Topology = v; return nil }},
	intFlag("nodes", "replicas (replicated) or masters (independent)", false, 1, func(sc *protocols.Scenario) *int { return &sc.Nodes }),
	{name: "persistence", usage: "what a restarting node keeps: none (restarts empty), everysec (loses up to its last second) or always (loses nothing) (default none)",
		get: func(sc *protocols.Scenario) []string { return nonEmpty(sc.Persistence) },
		set: func(sc *protocols.Scenario, v string) error { sc.Persistence = v; return nil }},
	msFlag("down-after-ms", "replicated topology: how long the sentinel waits before it declares the master down and promotes a replica (default 5000; swarm draws it)", func(sc *protocols.Scenario) *int64 { return &sc.DownAfterMs }),
	msFlag("discovery-ms", "replicated topology: how long clients take to learn a promoted master (default 1000; swarm draws it)", func(sc *protocols.Scenario) *int64 { return &sc.DiscoveryMs }),
	{name: "faults", usage: "comma-separated fault kinds drawn from the seed (default none)", keep: true,
		get: func(sc *protocols.Scenario) []string {
			if len(sc.FaultKinds) == 0 && len(sc.Faults) > 0 {
				return nil // the explicit schedule says it all
			}
			return []string{strings.Join(orNone(sc.FaultKinds), ",")}
		},
		set: func(sc *protocols.Scenario, v string) (err error) { sc.FaultKinds, err = parseKinds(v); return }},
	{name: "intensity", usage: "how many faults of each kind, as a scale (default 1)",
		get: func(sc *protocols.Scenario) []string {
			if sc.Intensity == 0 {
				return nil
			}
			return []string{strconv.FormatFloat(sc.Intensity, 'g', -1, 64)}
		},
		set: func(sc *protocols.Scenario, v string) error {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || !(x > 0 && x <= 100) {
				return fmt.Errorf("must be in (0, 100]")
			}
			sc.Intensity = x
			return nil
		}},
	{name: "max-events", usage: fmt.Sprintf("stop a run after `N` simulator events as \"unknown: budget exceeded\" (1 to %d; default: the protocol's cost per operation times clients x threads x ops, %d to %d)",
		protocols.MaxEventBudget, protocols.DefaultEventBudget, protocols.ScaledEventBudgetCap),
		get: func(sc *protocols.Scenario) []string {
			if sc.MaxEvents == 0 {
				return nil
			}
			return []string{strconv.FormatInt(sc.MaxEvents, 10)}
		},
		set: func(sc *protocols.Scenario, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 || n > protocols.MaxEventBudget {
				return fmt.Errorf("must be between 1 and %d", protocols.MaxEventBudget)
			}
			sc.MaxEvents = n
			return nil
		}},
	boolFlag("swarm", "draw every parameter not given by a flag from the seed: a subset of the fault kinds, intensity, sentinel timing, work, think time, stagger, arrival, clients, anchored share (explore's default)",
		func(sc *protocols.Scenario) *bool { return &sc.Swarm }),
	boolFlag("liveness", "check liveness too, after the last fault heals: a waiter that never wakes (lost-wakeup), a key renewed after its release (renewal-after-release) or outliving its holder (orphan-key), each by more than two leases",
		func(sc *protocols.Scenario) *bool { return &sc.Liveness }),
	boolFlag("data-apart", "keep the protected data on its own node, off the lock's master",
		func(sc *protocols.Scenario) *bool { return &sc.DataApart }),
	{name: "arrival", usage: "closed (each client waits for its last operation) or open (operations arrive on their own schedule)",
		get: func(sc *protocols.Scenario) []string { return nonEmpty(sc.Arrival) },
		set: func(sc *protocols.Scenario, v string) error { sc.Arrival = v; return nil }},
	{name: "anchor-pct", usage: "`PERCENT` of generated faults anchored to a client's operation (-1: none; default: the generator's)",
		get: func(sc *protocols.Scenario) []string {
			if sc.AnchorPct == 0 {
				return nil
			}
			return []string{strconv.Itoa(sc.AnchorPct)}
		},
		set: func(sc *protocols.Scenario, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < -1 || n > 100 {
				return fmt.Errorf("must be -1 or between 0 and 100")
			}
			sc.AnchorPct = n
			return nil
		}},
	{name: "fault", usage: "one explicit fault `" + trace.FaultSyntax + "` (repeatable; replaces the drawn schedule; ~ anchors it to a client's operation; DUR_MS 0: the fault ends as it starts, a client-crash never restarts)",
		get: func(sc *protocols.Scenario) []string {
			var out []string
			for _, f := range sc.Faults {
				out = append(out, trace.FormatFault(f))
			}
			return out
		},
		set: func(sc *protocols.Scenario, v string) error {
			f, err := trace.ParseFault(v)
			if err == nil && f.Anchor != nil {
				err = checkAnchorNames(*f.Anchor)
			}
			sc.Faults = append(sc.Faults, f)
			return err
		}},
}

// checkAnchorNames refuses an anchor whose operation or result no
// client ever records: its fault would never start, without a word.
func checkAnchorNames(a trace.Anchor) error {
	if !slices.Contains(model.Ops(), a.Op) {
		return fmt.Errorf("anchor: %v", suggest.Unknown("operation", a.Op, model.Ops()))
	}
	if a.Result != "" && !slices.Contains(model.Results(), a.Result) {
		return fmt.Errorf("anchor: %v", suggest.Unknown("result", a.Result, model.Results()))
	}
	return nil
}

// ParseList reads a comma-separated list value; an empty or repeated item
// is refused. Every list flag reads through it.
func ParseList(v string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(v, ",") {
		switch p = strings.TrimSpace(p); {
		case p == "":
			return nil, fmt.Errorf("has an empty item")
		case slices.Contains(out, p):
			return nil, fmt.Errorf("names %q twice", p)
		}
		out = append(out, p)
	}
	return out, nil
}

// parseKinds reads a --faults value: "none" or fault kinds, each once.
func parseKinds(v string) ([]string, error) {
	kinds, err := ParseList(v)
	switch {
	case err != nil:
		return nil, err
	case len(kinds) > 1 && slices.Contains(kinds, "none"):
		return nil, fmt.Errorf("\"none\" cannot be combined with fault kinds")
	case len(kinds) == 1 && kinds[0] == "none":
		return nil, nil
	}
	return kinds, nil
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func orNone(kinds []string) []string {
	if len(kinds) == 0 {
		return []string{"none"}
	}
	return kinds
}

func intFlag(name, usage string, keep bool, min int, field func(*protocols.Scenario) *int) scenarioFlag {
	return scenarioFlag{name: name, usage: usage, keep: keep,
		get: func(sc *protocols.Scenario) []string {
			if *field(sc) == 0 {
				return nil
			}
			return []string{strconv.Itoa(*field(sc))}
		},
		set: func(sc *protocols.Scenario, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < min {
				return fmt.Errorf("must be an integer of at least %d", min)
			}
			*field(sc) = n
			return nil
		}}
}

func boolFlag(name, usage string, field func(*protocols.Scenario) *bool) scenarioFlag {
	return scenarioFlag{name: name, usage: usage, boolean: true,
		get: func(sc *protocols.Scenario) []string {
			if !*field(sc) {
				return nil
			}
			return []string{"true"}
		},
		set: func(sc *protocols.Scenario, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("must be true or false")
			}
			*field(sc) = b
			return nil
		}}
}

func msFlag(name, usage string, field func(*protocols.Scenario) *int64) scenarioFlag {
	return scenarioFlag{name: name, usage: usage,
		get: func(sc *protocols.Scenario) []string {
			if *field(sc) == 0 {
				return nil
			}
			return []string{strconv.FormatInt(*field(sc), 10)}
		},
		set: func(sc *protocols.Scenario, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 { // 0 is the field's "unset": leaving the flag out says it
				return fmt.Errorf("must be a whole number of milliseconds, at least 1 (leave the flag out for the default)")
			}
			*field(sc) = n
			return nil
		}}
}

// RegisterScenarioFlags defines the scenario flags on fs, but those named
// in except; each one sets its field of *sc as it is parsed.
func RegisterScenarioFlags(fs *flag.FlagSet, sc *protocols.Scenario, except ...string) {
	for _, f := range scenarioFlags {
		if !slices.Contains(except, f.name) {
			f.register(fs, sc)
		}
	}
}

// RegisterScenarioFlag defines the scenario flag name alone, setting sc.
func RegisterScenarioFlag(fs *flag.FlagSet, sc *protocols.Scenario, name string) {
	for _, f := range scenarioFlags {
		if f.name == name {
			f.register(fs, sc)
		}
	}
}

func (f scenarioFlag) register(fs *flag.FlagSet, sc *protocols.Scenario) {
	if f.boolean {
		fs.BoolFunc(f.name, f.usage, func(v string) error { return f.set(sc, v) })
	} else {
		fs.Func(f.name, f.usage, func(v string) error { return f.set(sc, v) })
	}
}

// ScenarioFlagNames lists the names of the scenario flags.
func ScenarioFlagNames() []string {
	var out []string
	for _, f := range scenarioFlags {
		out = append(out, f.name)
	}
	return out
}

// replayArgs returns the arguments of `locksim run` that rebuild sc, the
// fewest that do, or false when the flags cannot express it (a network
// model or a setting without a flag).
func replayArgs(sc protocols.Scenario) ([]string, bool) {
	n, err := sc.Normalize()
	if err != nil {
		return nil, false
	}
	want, _ := json.Marshal(n)
	if sc.Workload == "" {
		sc.Workload = n.Workload // printed, so the reader need not know the default
	}
	if sc.Clients == 0 && !sc.Swarm { // a swarm draws unset clients: giving them changes the draws
		sc.Clients = n.Clients
	}
	on := make([]bool, len(scenarioFlags))
	for i, f := range scenarioFlags {
		on[i] = f.get(&sc) != nil
	}
	if !rebuilds(sc, on, want) {
		return nil, false
	}
	for i, f := range scenarioFlags {
		if on[i] && !f.keep {
			on[i] = false
			if !rebuilds(sc, on, want) {
				on[i] = true
			}
		}
	}
	return argsOf(sc, on), true
}

func argsOf(sc protocols.Scenario, on []bool) []string {
	args := []string{"run"}
	for i, f := range scenarioFlags {
		if on[i] {
			for _, v := range f.get(&sc) {
				if f.boolean {
					args = append(args, "--"+f.name)
					continue
				}
				args = append(args, "--"+f.name, v)
			}
		}
	}
	return args
}

// rebuilds reports whether the flags on, parsed as run parses them, give
// the normalized scenario want.
func rebuilds(sc protocols.Scenario, on []bool, want []byte) bool {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // a flag that no longer parses (a protocol file gone) just means no
	var got protocols.Scenario
	RegisterScenarioFlags(fs, &got)
	if err := fs.Parse(argsOf(sc, on)[1:]); err != nil {
		return false
	}
	b, err := normalized(got)
	return err == nil && bytes.Equal(b, want)
}

func normalized(sc protocols.Scenario) ([]byte, error) {
	n, err := sc.Normalize()
	if err != nil {
		return nil, err
	}
	return json.Marshal(n)
}

// ReplayCommand is the one-line shell command that reruns sc: `locksim
// run` with every flag that shapes it, or, when the flags cannot express
// it, `locksim replay file` (file may be "": then "").
func ReplayCommand(sc protocols.Scenario, file string) string {
	if args, ok := replayArgs(sc); ok {
		return ShellJoin(append([]string{"locksim"}, args...))
	}
	if file == "" {
		return ""
	}
	return ShellJoin([]string{"locksim", "replay", file})
}

// ShellJoin joins words into one command line, quoting those a POSIX
// shell would split or expand: every command locksim prints for a user.
func ShellJoin(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w
		if w == "" || strings.ContainsFunc(w, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./,:@+=", r))
		}) {
			out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}
