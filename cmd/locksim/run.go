package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/explore"
	"github.com/locksim/locksim/traces/view"
)

type outputFlags struct {
	cmd         string // the command, which errors name
	trace, html string
	json        bool
	failOn      *checker.FailOn
}

func (o *outputFlags) register(fs *flagSet) {
	o.cmd = fs.Name()
	fs.StringVar(&o.trace, "trace", "", "write the trace as JSON to `FILE` (replaced atomically; a device or FIFO is written through)")
	fs.StringVar(&o.html, "html", "", "write the HTML timeline (porcupine's linearization as a second tab) to `FILE`")
	fs.BoolVar(&o.json, "json", false, "print one JSON object on stdout")
	o.failOn = registerFailOn(fs)
}

func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", stdout)
	var out outputFlags
	out.register(fs)
	scenario := fs.String("scenario", "", "run the named reference scenario `NAME` (see locksim list), or a scenario FILE "+
		"(a name ending in .json or an existing file: a scenario as --print-scenario writes it, or a trace file, whose embedded scenario runs); "+
		"the scenario flags given change it")
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
	replay, from := "", origin{}
	if *scenario != "" || !fs.isSet("protocol") && !fs.isSet("protocol-file") {
		from.flags = scenarioArgs(fs, args)
		if *scenario == "" && len(from.flags) > 0 {
			name, _, _ := strings.Cut(from.flags[0], "=")
			return usageErr(stderr, "run", fmt.Errorf("%s needs --protocol or --protocol-file, or --scenario NAME whose scenario it changes", name))
		}
		from.scenario = cmp.Or(*scenario, traces.DefaultReference)
		var fromTrace bool
		from.base, fromTrace, err = namedScenario(from.scenario, *maxMB)
		if err != nil {
			return usageErr(stderr, "run", err)
		}
		if sc, err = override(from.base, from.flags); err != nil {
			return usageErr(stderr, "run", err)
		}
		if fromTrace {
			if err := checkReplayCost(sc, defaultReplayEvents, "run", from.scenario); err != nil {
				return usageErr(stderr, "run", err)
			}
		}
		replay = from.command(nil)
	} else {
		replay = explore.ReplayCommand(sc, out.trace)
	}
	if *printScenario {
		return printScenarioJSON(sc, stdout, stderr)
	}
	o, err := traces.Execute(sc)
	if err != nil {
		return usageErr(stderr, "run", err)
	}
	return finish(o, replay, from, out, stdout, stderr)
}

// origin is where a run's scenario came from, for the commands that
// re-run its advice: the scenario --scenario named (a reference or a
// file) and the scenario flags that changed it; no scenario when flags
// alone built it.
type origin struct {
	scenario string
	base     protocols.Scenario
	flags    []string // --name value, or --name=value for a boolean
}

// command is `locksim run --scenario` with o's flags and then flags.
func (o origin) command(flags []string) string {
	words := append([]string{"locksim", "run", "--scenario", o.scenario}, o.flags...)
	return explore.ShellJoin(append(words, flags...))
}

// scenarioArgs lists the scenario flags args gives, in their order, as
// --name value (--name=value for a boolean); fs has parsed args.
func scenarioArgs(fs *flagSet, args []string) []string {
	names := explore.ScenarioFlagNames()
	var out []string
	rec := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	rec.SetOutput(io.Discard)
	fs.VisitAll(func(f *flag.Flag) {
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			rec.BoolFunc(f.Name, "", func(v string) error {
				if slices.Contains(names, f.Name) {
					out = append(out, "--"+f.Name+"="+v)
				}
				return nil
			})
			return
		}
		rec.Func(f.Name, "", func(v string) error {
			if slices.Contains(names, f.Name) {
				out = append(out, "--"+f.Name, v)
			}
			return nil
		})
	})
	rec.Parse(args)
	return out
}

// override is base as it runs (normalized: what --print-scenario shows)
// with each of flags, scenario flags as scenarioArgs lists them,
// replacing its field; --fault replaces the whole schedule. The flags
// that draw faults are refused: base's are drawn already.
func override(base protocols.Scenario, flags []string) (protocols.Scenario, error) {
	if len(flags) == 0 {
		return base, nil
	}
	sc, err := base.Normalize()
	if err != nil {
		return sc, err
	}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	explore.RegisterScenarioFlags(fs, &sc)
	faults := false
	for i := 0; i < len(flags); i++ {
		name, value, isBool := strings.Cut(strings.TrimPrefix(flags[i], "--"), "=")
		if !isBool && i+1 < len(flags) {
			i++
			value = flags[i]
		}
		switch name {
		case "faults", "intensity", "swarm", "anchor-pct":
			return sc, fmt.Errorf("--%s draws faults, and the scenario's are drawn already: give them with --fault instead", name)
		case "protocol":
			sc.ProtocolFile = nil
		case "protocol-file":
			sc.Protocol = ""
		case "fault":
			if !faults {
				sc.Faults, faults = nil, true
			}
		}
		if err := fs.Set(name, value); err != nil {
			return sc, fmt.Errorf("--%s %q: %v", name, value, err)
		}
	}
	return sc, nil
}

// adviceCommand is the command that runs exactly a's re-run: the flags
// that build its scenario when they can say it all, or else the run's
// own --scenario and flags with a's change after them; "" when neither
// parses back to a's scenario.
func adviceCommand(a traces.Advice, from origin) string {
	if cmd := explore.ReplayCommand(a.Scenario, ""); cmd != "" || from.scenario == "" {
		return cmd
	}
	sc, err := override(from.base, append(slices.Clone(from.flags), a.Flags...))
	if err != nil {
		return ""
	}
	got, err1 := sc.Normalize()
	want, err2 := a.Scenario.Normalize()
	if err1 != nil || err2 != nil {
		return ""
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if !bytes.Equal(g, w) {
		return ""
	}
	return from.command(a.Flags)
}

// namedScenario is the scenario --scenario names: a reference by name,
// or a scenario or trace file (traces.IsScenarioFile) read under the
// --max-input-mb cap; fromTrace says it is a trace file's.
func namedScenario(name string, maxMB int64) (sc protocols.Scenario, fromTrace bool, err error) {
	if !traces.IsScenarioFile(name) {
		ref, err := traces.LookupReference(name)
		return ref.Scenario, false, err
	}
	limit, err := maxInputBytes(maxMB)
	if err != nil {
		return protocols.Scenario{}, false, err
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
func finish(o *traces.Outcome, replay string, from origin, out outputFlags, stdout, stderr io.Writer) int {
	notes := stdout // what was written; on stderr when stdout carries JSON
	if out.json {
		notes = stderr
	}
	if out.trace != "" {
		if err := traces.Write(out.trace, o.File); err != nil {
			return usageErr(stderr, out.cmd, err)
		}
		fmt.Fprintf(notes, "wrote %s\n", out.trace)
	}
	if out.html != "" {
		// The timeline, with porcupine's linearization as its second tab.
		var buf bytes.Buffer
		if err := view.WriteOutcomeView(&buf, o); err != nil {
			return usageErr(stderr, out.cmd, fmt.Errorf("--html: %v", err))
		}
		if err := traces.WriteAtomic(out.html, buf.Bytes()); err != nil {
			return usageErr(stderr, out.cmd, err)
		}
		fmt.Fprintf(notes, "wrote %s\n", out.html)
	}
	advice := traces.Advise(o)
	if out.json {
		b, _ := json.MarshalIndent(summary(o, advice, replay, from), "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else {
		printHuman(stdout, o, advice, replay, from, *out.failOn)
		if out.cmd == "replay" {
			// traces.Verify refused any difference before this point.
			fmt.Fprintf(stdout, "  replayed: the same %s and verdict as the file (trace %s)\n",
				explore.Plural(o.File.Trace.Stats.Events, "event"), o.File.TraceSHA256[:16])
		}
	}
	switch {
	case o.Fails(*out.failOn):
		return exitViolation
	case o.File.Report.Verdict == checker.VerdictUnknown:
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
	Advice      []jsonAdvice        `json:"advice,omitempty"`
	Replay      string              `json:"replay"`
}

// jsonAdvice is a traces.Advice with the command that re-runs it.
type jsonAdvice struct {
	traces.Advice
	Replay string `json:"replay,omitempty"`
}

func summary(o *traces.Outcome, advice []traces.Advice, replay string, from origin) jsonSummary {
	var adv []jsonAdvice
	for _, a := range advice {
		adv = append(adv, jsonAdvice{a, adviceCommand(a, from)})
	}
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
		Advice: adv, Replay: replay,
	}
}

func printHuman(w io.Writer, o *traces.Outcome, advice []traces.Advice, replay string, from origin, failOn checker.FailOn) {
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
	printFaults(w, f, "  ")
	printFindings(w, f.Report, "see --json")
	printAdvice(w, advice, from)
	printPassesFailOn(w, f.Report, failOn)
	fmt.Fprintf(w, "  %d events, %d redis commands, %s simulated in %d ms; trace %s\n",
		f.Trace.Stats.Events, f.Trace.Stats.RedisCommands, f.Report.Precision.Seconds(f.Trace.Stats.SimNs),
		o.Wall.Milliseconds(), f.TraceSHA256[:16])
	fmt.Fprintf(w, "  replay: %s\n", replay)
}

// printFindings prints r's violations by property, each with its cause
// and explanation, and the damage: what run and check print alike. more
// says where to see the violations left out past the first eight.
func printFindings(w io.Writer, r checker.Report, more string) {
	shown, damaged := 0, false
	for _, g := range r.Groups() {
		if g.Property == checker.PropDamage {
			damaged = true
			printDamage(w, r)
		} else {
			fmt.Fprintf(w, "  %s\n", checker.Heading(g.Property))
		}
		for _, v := range g.Violations {
			if shown == 8 {
				fmt.Fprintf(w, "    ... and %s more (%s)\n", explore.Plural(len(r.Violations)-shown, "violation"), more)
				break
			}
			shown++
			cause := v.Cause
			if v.Reason != "" {
				cause += " (" + v.Reason + ")"
			}
			head := cause
			if v.Key != "" {
				head += " on " + keyPhrase(v)
			}
			if len(v.Clients) > 0 {
				head += ", " + strings.Join(v.Clients, " and ")
			}
			if v.Key != "" || len(v.Clients) > 0 {
				head += ", at " + r.Precision.At(v.AtNs())
			}
			fmt.Fprintf(w, "    %s\n      %s\n", head, v.Explanation)
		}
	}
	if !damaged {
		printDamage(w, r)
	}
}

// printPassesFailOn says when a violation passes the --fail-on policy.
func printPassesFailOn(w io.Writer, r checker.Report, failOn checker.FailOn) {
	if len(failOn) > 0 && r.Verdict == checker.VerdictViolation && !r.Fails(failOn) {
		fmt.Fprintf(w, "  passes --fail-on %s: it broke %s only\n", failOn, strings.Join(r.Broken(), ", "))
	}
}

// printAdvice prints the changes that removed the violations when the
// same seed and faults were re-run with them, each with the command that
// runs its re-run.
func printAdvice(w io.Writer, advice []traces.Advice, from origin) {
	if len(advice) == 0 {
		return
	}
	fmt.Fprintln(w, "  what to change (each re-run on the same seed and faults):")
	for _, a := range advice {
		fmt.Fprintf(w, "    - %s\n      with %s\n", a.Change, a.Result)
		if cmd := adviceCommand(a, from); cmd != "" {
			fmt.Fprintf(w, "      %s\n", cmd)
		}
	}
}

// keyPhrase names what a violation is about: the lock key for ownership,
// mutual exclusion and liveness, the protected data otherwise, the name
// quoted as data.
func keyPhrase(v checker.Violation) string {
	if v.Property != checker.PropDamage || v.Model == checker.ModelLockTokens {
		return fmt.Sprintf("the lock key %q", v.Key)
	}
	return fmt.Sprintf("the protected data %q", v.Key)
}

// printDamage prints the damage heading with its counts, what fencing
// rejected, and the late writes that harmed nothing.
func printDamage(w io.Writer, r checker.Report) {
	d, harmless := r.Harm()
	line := damageLine(d)
	if line == "" && d.StaleWritesRejected == 0 && !slices.Contains(r.Broken(), checker.PropDamage) {
		if harmless > 0 {
			fmt.Fprintf(w, "  %s\n", harmlessLine(harmless))
		}
		return
	}
	switch {
	case line == "" && slices.Contains(r.Broken(), checker.PropDamage):
		line = "no harm counted" // the violations below say what broke
	case line == "":
		line = "none"
	}
	if n := d.StaleWritesRejected; n > 0 {
		line += "; " + fencingLine(n)
	}
	fmt.Fprintf(w, "  %s: %s\n", checker.Heading(checker.PropDamage), line)
	if d.StaleWritesAccepted > 0 {
		fmt.Fprintf(w, "    (%s)\n", checker.StaleWriteGloss)
	}
	if n := d.LateWritesFirst; n > 0 {
		fmt.Fprintf(w, "    %s\n", lateFirstLine(n))
	}
	if harmless > 0 {
		fmt.Fprintf(w, "    %s\n", harmlessLine(harmless))
	}
}

// lateFirstLine tells the late writes that reached the data before the
// next holder's first write.
func lateFirstLine(n int) string {
	return explore.Plural(n, "late write") + " ahead of the next holder: " + checker.LateFirstGloss
}

// fencingLine says what fencing rejected.
func fencingLine(n int) string {
	return "fencing rejected " + explore.Plural(n, "stale write")
}

// harmlessLine tells the late writes no newer holder's data was at
// stake in.
func harmlessLine(n int) string {
	return explore.Plural(n, "late write") + " with no newer writer: " + checker.HarmlessLateGloss
}

// damageLine lists the non-zero harm counts (not what fencing rejected).
func damageLine(d checker.Damage) string {
	var parts []string
	for _, c := range d.Counts() {
		switch {
		case !c.Harm:
		case c.N == 1:
			parts = append(parts, "1 "+c.One)
		case c.N > 1:
			parts = append(parts, fmt.Sprintf("%d %s", c.N, c.Other))
		}
	}
	return strings.Join(parts, ", ")
}
