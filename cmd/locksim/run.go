package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/view"
)

type outputFlags struct {
	trace, html string
	json        bool
}

func (o *outputFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.trace, "trace", "", "write the trace as JSON to `FILE`")
	fs.StringVar(&o.html, "html", "", "write the HTML timeline (porcupine's linearization as a second tab) to `FILE`")
	fs.BoolVar(&o.json, "json", false, "print one JSON object on stdout")
}

func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run")
	var out outputFlags
	out.register(fs)
	scenario := fs.String("scenario", "", "run the named reference scenario")
	protocol := fs.String("protocol", "", "lock protocol (see locksim list)")
	workload := fs.String("workload", "unique-name", "workload")
	seed := fs.Uint64("seed", 1, "seed")
	clients := fs.Int("clients", 3, "number of client processes")
	faults := fs.String("faults", "none", "comma-separated fault kinds")
	topology := fs.String("topology", "", "single, replicated or independent (default: the protocol's)")
	intensity := fs.Float64("intensity", 1, "how many faults of each kind (scale)")
	pos, err := parse(fs, args)
	if err != nil {
		return usageErr(stderr, "run", err)
	}
	if len(pos) > 0 {
		return usageErr(stderr, "run", fmt.Errorf("unexpected argument %q", pos[0]))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	var sc protocols.Scenario
	replay := ""
	if *protocol == "" {
		name := *scenario
		if name == "" {
			name = traces.DefaultReference
		}
		for _, f := range []string{"workload", "seed", "clients", "faults", "topology", "intensity"} {
			if set[f] {
				return usageErr(stderr, "run", fmt.Errorf("--%s needs --protocol (a reference scenario is fixed)", f))
			}
		}
		ref, err := traces.LookupReference(name)
		if err != nil {
			return usageErr(stderr, "run", err)
		}
		sc = ref.Scenario
		replay = "locksim run --scenario " + name
	} else {
		if *scenario != "" {
			return usageErr(stderr, "run", errors.New("give --scenario or --protocol, not both"))
		}
		if *clients < 1 {
			return usageErr(stderr, "run", errors.New("--clients must be at least 1"))
		}
		kinds := splitList(*faults)
		if len(kinds) == 1 && kinds[0] == "none" {
			kinds = nil
		}
		if *intensity <= 0 || *intensity > 100 {
			return usageErr(stderr, "run", errors.New("--intensity must be in (0, 100]"))
		}
		sc = protocols.Scenario{Seed: *seed, Protocol: *protocol, Workload: *workload, Clients: *clients,
			FaultKinds: kinds, Topology: *topology, Intensity: *intensity}
		replay = fmt.Sprintf("locksim run --protocol %s --workload %s --seed %d --clients %d --faults %s",
			*protocol, *workload, *seed, *clients, strings.Join(orNone(kinds), ","))
		if *topology != "" {
			replay += " --topology " + *topology
		}
		if *intensity != 1 {
			replay += fmt.Sprintf(" --intensity %g", *intensity)
		}
	}
	o, err := traces.Execute(sc)
	if err != nil {
		return usageErr(stderr, "run", err)
	}
	return finish(o, replay, out, stdout, stderr)
}

func orNone(kinds []string) []string {
	if len(kinds) == 0 {
		return []string{"none"}
	}
	return kinds
}

// finish writes the requested files, prints the outcome and returns the
// exit code of its verdict.
func finish(o *traces.Outcome, replay string, out outputFlags, stdout, stderr io.Writer) int {
	if out.trace != "" {
		if err := traces.Write(out.trace, o.File); err != nil {
			return usageErr(stderr, "run", err)
		}
	}
	if out.html != "" {
		// The timeline, with porcupine's linearization as its second tab.
		var buf bytes.Buffer
		if err := view.WriteOutcomeView(&buf, o); err != nil {
			return usageErr(stderr, "run", fmt.Errorf("--html: %v", err))
		}
		if err := traces.WriteAtomic(out.html, buf.Bytes()); err != nil {
			return usageErr(stderr, "run", err)
		}
	}
	if out.json {
		b, _ := json.MarshalIndent(summary(o, replay), "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else {
		printHuman(stdout, o, replay)
	}
	switch o.File.Report.Verdict {
	case checker.VerdictViolation:
		return exitViolation
	case checker.VerdictUnknown:
		return exitUnknown
	}
	return exitOK
}

type jsonStats struct {
	SimMs         float64 `json:"sim_ms"`
	WallMs        float64 `json:"wall_ms"`
	Events        int     `json:"events"`
	RedisCommands int     `json:"redis_commands"`
}

type jsonSummary struct {
	Verdict     string              `json:"verdict"`
	Protocol    string              `json:"protocol"`
	Workload    string              `json:"workload"`
	Seed        uint64              `json:"seed"`
	Faults      int                 `json:"faults"`
	Violations  []checker.Violation `json:"violations"`
	Damage      checker.Damage      `json:"damage"`
	Checked     []checker.Checked   `json:"checked"`
	TraceSHA256 string              `json:"trace_sha256"`
	Stats       jsonStats           `json:"stats"`
	Replay      string              `json:"replay"`
}

func summary(o *traces.Outcome, replay string) jsonSummary {
	f := o.File
	return jsonSummary{
		Verdict: f.Report.Verdict, Protocol: f.Scenario.Protocol, Workload: f.Scenario.Workload,
		Seed: f.Scenario.Seed, Faults: len(f.Scenario.Faults), Violations: f.Report.Violations,
		Damage: f.Report.Damage, Checked: f.Report.Checked, TraceSHA256: f.TraceSHA256,
		Stats: jsonStats{
			SimMs:  float64(f.Trace.Stats.SimNs) / 1e6,
			WallMs: float64(o.Wall.Microseconds()) / 1e3,
			Events: f.Trace.Stats.Events, RedisCommands: f.Trace.Stats.RedisCommands,
		},
		Replay: replay,
	}
}

func printHuman(w io.Writer, o *traces.Outcome, replay string) {
	f := o.File
	sc := f.Scenario
	faults := "no faults"
	if n := len(sc.Faults); n > 0 {
		faults = fmt.Sprintf("%d faults", n)
	}
	fmt.Fprintf(w, "%s: %s / %s, seed %d, %d clients, %s\n",
		strings.ToUpper(f.Report.Verdict), sc.Protocol, sc.Workload, sc.Seed, sc.Clients, faults)
	for i, v := range f.Report.Violations {
		if i == 8 {
			fmt.Fprintf(w, "  ... and %d more violations (see --json)\n", len(f.Report.Violations)-i)
			break
		}
		cause := v.Cause
		if v.Reason != "" {
			cause += " (" + v.Reason + ")"
		}
		fmt.Fprintf(w, "  %s: %s on %s, %s, at t=%.1f s\n    %s\n",
			v.Property, cause, v.Key, strings.Join(v.Clients, " and "), v.AtMs/1000, v.Explanation)
	}
	if line := damageLine(f.Report.Damage); line != "" {
		fmt.Fprintf(w, "  damage: %s\n", line)
	}
	fmt.Fprintf(w, "  %d events, %d redis commands, %.1f s simulated in %d ms; trace %s\n",
		f.Trace.Stats.Events, f.Trace.Stats.RedisCommands, float64(f.Trace.Stats.SimNs)/1e9,
		o.Wall.Milliseconds(), f.TraceSHA256[:16])
	fmt.Fprintf(w, "  replay: %s\n", replay)
}

// damageLine lists the non-zero damage counts, harm first.
func damageLine(d checker.Damage) string {
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{
		{d.DuplicateInserts, "duplicate inserts"},
		{d.LostUpdates, "lost updates"},
		{d.OversoldUnits, "oversold units"},
		{d.LostElements, "lost set elements"},
		{d.StaleWritesAccepted, "stale writes accepted"},
		{d.StaleWritesRejected, "stale writes rejected by fencing"},
	} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	return strings.Join(parts, ", ")
}
