package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/explore"
	"github.com/locksim/locksim/traces/view"
)

type outputFlags struct {
	trace, html string
	json        bool
}

func (o *outputFlags) register(fs *flagSet) {
	fs.StringVar(&o.trace, "trace", "", "write the trace as JSON to `FILE` (replaced atomically; a device or FIFO is written through)")
	fs.StringVar(&o.html, "html", "", "write the HTML timeline (porcupine's linearization as a second tab) to `FILE`")
	fs.BoolVar(&o.json, "json", false, "print one JSON object on stdout")
}

func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", stdout)
	var out outputFlags
	out.register(fs)
	scenario := fs.String("scenario", "", "run the named reference scenario `NAME` (see locksim list), or a scenario FILE "+
		"(a name ending in .json or an existing file: a scenario as --print-scenario writes it, or a trace file, whose embedded scenario runs)")
	printScenario := fs.Bool("print-scenario", false, "print the scenario as JSON (every field, a stable order) and exit without running it; save it, edit it, run it with --scenario FILE")
	maxMB := registerMaxInput(fs)
	sc := protocols.Scenario{Seed: defaultSeed}
	explore.RegisterScenarioFlags(fs.FlagSet, &sc)
	pos, err := parse(fs, args)
	if err != nil {
		return usageErr(stderr, "run", err)
	}
	if len(pos) > 0 {
		return usageErr(stderr, "run", fmt.Errorf("unexpected argument %q", pos[0]))
	}
	if err := checkOutputs(nil, out.trace, out.html); err != nil {
		return usageErr(stderr, "run", err)
	}
	replay := ""
	if !fs.isSet("protocol") {
		name := *scenario
		if name == "" {
			name = traces.DefaultReference
		}
		for _, f := range explore.ScenarioFlagNames() {
			if fs.isSet(f) {
				return usageErr(stderr, "run", fmt.Errorf("--%s needs --protocol (a reference scenario or a scenario file is fixed: edit its --print-scenario output instead)", f))
			}
		}
		sc, err = namedScenario(name, *maxMB)
		if err != nil {
			return usageErr(stderr, "run", err)
		}
		replay = "locksim run --scenario " + name
	} else {
		if *scenario != "" {
			return usageErr(stderr, "run", errors.New("give --scenario or --protocol, not both"))
		}
		replay = explore.ReplayCommand(sc, out.trace)
	}
	if *printScenario {
		return printScenarioJSON(sc, stdout, stderr)
	}
	o, err := traces.Execute(sc)
	if err != nil {
		return usageErr(stderr, "run", err)
	}
	return finish(o, replay, out, stdout, stderr)
}

// namedScenario is the scenario --scenario names: a reference by name,
// or a scenario or trace file (traces.IsScenarioFile) read under the
// --max-input-mb cap.
func namedScenario(name string, maxMB int64) (protocols.Scenario, error) {
	if !traces.IsScenarioFile(name) {
		ref, err := traces.LookupReference(name)
		return ref.Scenario, err
	}
	limit, err := maxInputBytes(maxMB)
	if err != nil {
		return protocols.Scenario{}, err
	}
	return traces.ReadScenario(name, limit)
}

// printScenarioJSON prints sc normalized (every default filled in, drawn
// faults written out) as indented JSON in the struct's field order: the
// file runs as the scenario itself does.
func printScenarioJSON(sc protocols.Scenario, stdout, stderr io.Writer) int {
	n, err := sc.Normalize()
	if err != nil {
		return usageErr(stderr, "run", err)
	}
	b, err := json.MarshalIndent(n, "", "  ")
	if err != nil {
		return usageErr(stderr, "run", err)
	}
	fmt.Fprintln(stdout, string(b))
	return exitOK
}

// finish writes the requested files, prints the outcome and returns the
// exit code of its verdict.
func finish(o *traces.Outcome, replay string, out outputFlags, stdout, stderr io.Writer) int {
	notes := stdout // what was written; on stderr when stdout carries JSON
	if out.json {
		notes = stderr
	}
	if out.trace != "" {
		if err := traces.Write(out.trace, o.File); err != nil {
			return usageErr(stderr, "run", err)
		}
		fmt.Fprintf(notes, "wrote %s\n", out.trace)
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
		fmt.Fprintf(notes, "wrote %s\n", out.html)
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
	Budget      string              `json:"budget,omitempty"`
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
		Verdict: f.Report.Verdict, Budget: f.Report.Budget, Protocol: f.Scenario.Protocol, Workload: f.Scenario.Workload,
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
		faults = explore.Plural(n, "fault")
	}
	fmt.Fprintf(w, "%s: %s / %s, seed %d, %s, %s\n",
		strings.ToUpper(f.Report.Verdict), sc.Protocol, sc.Workload, sc.Seed, explore.Plural(sc.Clients, "client"), faults)
	switch {
	case f.Trace.Stats.AtHorizon():
		fmt.Fprintf(w, "  %s\n", f.Report.Budget)
	case f.Report.Budget != "":
		fmt.Fprintf(w, "  %s (raise it with --max-events)\n", f.Report.Budget)
	}
	for i, v := range f.Report.Violations {
		if i == 8 {
			fmt.Fprintf(w, "  ... and %s more (see --json)\n", explore.Plural(len(f.Report.Violations)-i, "violation"))
			break
		}
		cause := v.Cause
		if v.Reason != "" {
			cause += " (" + v.Reason + ")"
		}
		fmt.Fprintf(w, "  %s: %s on %s, %s, at t=%.1f s\n    %s\n",
			v.Property, cause, keyPhrase(v), strings.Join(v.Clients, " and "), v.AtMs/1000, v.Explanation)
	}
	printDamage(w, f.Report)
	fmt.Fprintf(w, "  %d events, %d redis commands, %.1f s simulated in %d ms; trace %s\n",
		f.Trace.Stats.Events, f.Trace.Stats.RedisCommands, float64(f.Trace.Stats.SimNs)/1e9,
		o.Wall.Milliseconds(), f.TraceSHA256[:16])
	fmt.Fprintf(w, "  replay: %s\n", replay)
}

// keyPhrase names what a violation is about: the lock key for mutual
// exclusion and liveness, the protected data otherwise, the name quoted
// as data.
func keyPhrase(v checker.Violation) string {
	if v.Property == checker.PropMutex || v.Property == checker.PropLiveness {
		return fmt.Sprintf("the lock key %q", v.Key)
	}
	return fmt.Sprintf("the protected data %q", v.Key)
}

// printDamage prints the damage line. In a run without violations, writes
// made after the lease ran out harmed nothing (no one else held the lock)
// and are reported as such, not as damage.
func printDamage(w io.Writer, r checker.Report) {
	d, harmless := r.Harm()
	if line := damageLine(d); line != "" {
		fmt.Fprintf(w, "  damage to the protected data: %s\n", line)
		if d.StaleWritesAccepted > 0 || d.StaleWritesRejected > 0 {
			fmt.Fprintf(w, "    (%s)\n", checker.StaleWriteGloss)
		}
	}
	if harmless > 0 {
		fmt.Fprintf(w, "  no damage: %s made after the lock's lease ran out on Redis, while no other client held the lock\n",
			explore.Plural(harmless, "write"))
	}
}

// damageLine lists the non-zero damage counts, harm first.
func damageLine(d checker.Damage) string {
	var parts []string
	for _, c := range d.Counts() {
		switch {
		case c.N == 1:
			parts = append(parts, "1 "+c.One)
		case c.N > 1:
			parts = append(parts, fmt.Sprintf("%d %s", c.N, c.Other))
		}
	}
	return strings.Join(parts, ", ")
}
