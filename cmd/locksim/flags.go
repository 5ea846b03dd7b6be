package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces/explore"
)

// errHelp is returned by parse after it printed a command's usage for
// --help: the command then exits 0.
var errHelp = errors.New("help shown")

// flagSet is a command's flags plus what its --help prints.
type flagSet struct {
	*flag.FlagSet
	cmd  command
	help io.Writer
}

// newFlags returns a flag set that never prints on its own: errors become
// one line from the caller, and --help prints the command's usage on help.
func newFlags(name string, help io.Writer) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	c, _ := lookupCommand(name)
	s := &flagSet{FlagSet: fs, cmd: c, help: help}
	if flagSetHook != nil {
		flagSetHook(s)
	}
	return s
}

// flagSetHook lets tests see every flag set a command defines.
var flagSetHook func(*flagSet)

// parse parses args, allowing flags after positional arguments, and
// returns the positional arguments. A valued flag given an empty string
// is refused.
func (fs *flagSet) parse(args []string) ([]string, error) {
	fs.VisitAll(func(f *flag.Flag) {
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !(ok && b.IsBoolFlag()) {
			if _, done := f.Value.(nonEmpty); !done {
				f.Value = nonEmpty{f.Value}
			}
		}
	})
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.usage(fs.help)
				return nil, errHelp
			}
			return nil, fs.flagError(err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if afterParse != nil {
		return nil, afterParse()
	}
	return pos, nil
}

// afterParse, when set (by the flag-parser fuzz test), ends a command as
// soon as its flags are parsed, with its error.
var afterParse func() error

var invalidValue = regexp.MustCompile(`^invalid (?:boolean )?value (".*") for (?:flag )?-(\S+): (.*)$`)

var undefinedFlag = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)

var strconvPrefix = regexp.MustCompile(`strconv\.(\w+): parsing ".*": `)

// What a refused value must be: the flag package's "parse error" and
// strconv's "invalid syntax" say nothing a user can act on.
const (
	wantUint  = "a whole number, 0 or more"
	wantInt   = "a whole number"
	wantFloat = "a number"
	wantBool  = "true or false"
)

// wants is what a value strconv refused must be, by the parser.
var wants = map[string]string{"ParseUint": wantUint, "ParseInt": wantInt, "Atoi": wantInt, "ParseFloat": wantFloat}

// flagError rewrites the flag package's "invalid value "x" for flag -n:
// why" as "--n "x": why", and "flag provided but not defined: -x" as
// "unknown flag --x", with the nearest flag of the command suggested.
func (fs *flagSet) flagError(err error) error {
	if m := undefinedFlag.FindStringSubmatch(err.Error()); m != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		msg := "unknown flag " + dashes(m[1])
		if best := nearest(m[1], names); best != "" {
			msg += " (did you mean " + dashes(best) + "?)"
		}
		return errors.New(msg + " (see locksim help " + fs.Name() + ")")
	}
	m := invalidValue.FindStringSubmatch(err.Error())
	if m == nil {
		return errors.New(strings.Replace(err.Error(), "flag: -", "flag: --", 1))
	}
	dash := "--"
	if len(m[2]) == 1 {
		dash = "-"
	}
	why := strconvPrefix.ReplaceAllString(m[3], "")
	want := fs.wantOf(m[2])
	if p := strconvPrefix.FindStringSubmatch(m[3]); p != nil {
		want = wants[p[1]]
	}
	switch {
	case want == "":
	case why == "invalid syntax" || why == "parse error":
		why = "not " + want
	case why == "value out of range":
		why = "out of range for " + want
	}
	return fmt.Errorf("%s%s %s: %s", dash, m[2], m[1], why)
}

// wantOf is what the flag package's own numeric or boolean flag name
// takes ("" for any other flag).
func (fs *flagSet) wantOf(name string) string {
	f := fs.Lookup(name)
	if f == nil {
		return ""
	}
	v := f.Value
	if ne, ok := v.(nonEmpty); ok {
		v = ne.Value
	}
	g, ok := v.(flag.Getter)
	if !ok {
		return ""
	}
	switch g.Get().(type) {
	case uint, uint64:
		return wantUint
	case int, int64:
		return wantInt
	case float64:
		return wantFloat
	case bool:
		return wantBool
	}
	return ""
}

// nonEmpty refuses an empty or blank value: every valued flag names or
// counts something.
type nonEmpty struct{ flag.Value }

func (v nonEmpty) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("must not be empty")
	}
	return v.Value.Set(s)
}

// isSet reports whether the flag name was given on the command line.
func (fs *flagSet) isSet(name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// usage prints the command's synopsis, every flag with its default, and
// the limits that apply.
func (fs *flagSet) usage(w io.Writer) {
	c := fs.cmd
	fmt.Fprintf(w, "usage: %s\n\n%s.\n", c.usage, capitalize(c.summary))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nFlags:")
	}
	fs.VisitAll(func(f *flag.Flag) {
		plain := *f
		if v, ok := f.Value.(nonEmpty); ok {
			plain.Value = v.Value // UnquoteUsage names a value by its type
		}
		arg, text := flag.UnquoteUsage(&plain)
		if arg == "value" {
			arg = argName(f.Name)
		}
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		line := "  " + dash + f.Name
		if arg != "" {
			line += " " + arg
		}
		if def := f.DefValue; def != "" && def != "false" && !strings.Contains(text, "(default") {
			text += fmt.Sprintf(" (default %s)", def)
		}
		if len(line) > 23 {
			line += "\n" + strings.Repeat(" ", 24)
		}
		fmt.Fprintf(w, "%-24s %s\n", line, text)
	})
	if c.notes != "" {
		fmt.Fprintf(w, "\n%s\n", c.notes)
	}
	fmt.Fprintf(w, "\nExample: %s\n%s\n", c.example, exitCodesOf(c.name))
}

// argName names the value of a flag whose usage does not.
func argName(flag string) string {
	switch {
	case strings.HasSuffix(flag, "-ms"):
		return "MS"
	case strings.HasSuffix(flag, "s") && flag != "clients" && flag != "threads" && flag != "ops" && flag != "nodes":
		return "LIST"
	case flag == "intensity":
		return "X"
	case flag == "seed" || flag == "clients" || flag == "threads" || flag == "ops" || flag == "nodes":
		return "N"
	}
	return "NAME"
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// splitList splits the comma-separated value of flag name
// (explore.ParseList); an empty value is an empty list.
func splitList(name, s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out, err := explore.ParseList(s)
	if err != nil {
		return nil, fmt.Errorf("--%s %v", name, err)
	}
	return out, nil
}

func parse(fs *flagSet, args []string) ([]string, error) { return fs.parse(args) }

// given reports whether the flag name was given.
func (fs *flagSet) given(name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// failOnValue is --fail-on's value: the properties whose violation fails
// the command (checker.FailOn decides).
type failOnValue struct{ p *checker.FailOn }

func (v failOnValue) String() string {
	if v.p == nil {
		return "any"
	}
	return v.p.String()
}

func (v failOnValue) Set(s string) error {
	p, err := checker.ParseFailOn(s)
	if err != nil {
		return err
	}
	*v.p = p
	return nil
}

// failOnHelp documents --fail-on and why its default is any.
const failOnHelp = "exit 1 only for a broken `PROPERTY`: " + checker.FailOnWords + ", comma-separated. " +
	"Default any: a lock that let two clients in, or renewed or released another's lease, is unsafe even when this run's data survived " +
	"(damage depends on the workload and timing); narrow it to damage for a fenced lock whose resource checks tokens"

// registerFailOn adds --fail-on to fs.
func registerFailOn(fs *flagSet) *checker.FailOn {
	p := new(checker.FailOn)
	fs.Var(failOnValue{p}, "fail-on", failOnHelp)
	return p
}

// registerProtocolFiles defines the repeatable --protocol-file of the
// commands whose rows are protocols (matrix, verify): each file is read
// and checked as it is parsed.
func registerProtocolFiles(fs *flagSet) *[]*protocols.ProtocolFile {
	var files []*protocols.ProtocolFile
	fs.Func("protocol-file", "add the lock described in `FILE` as a row (repeatable; without --protocols, the only rows; docs/protocol-files.md)", func(v string) error {
		f, err := protocols.LoadProtocolFile(v)
		if err != nil {
			return errors.New(strings.TrimPrefix(err.Error(), v+": ")) // the flag's message names the file
		}
		files = append(files, f)
		return nil
	})
	return &files
}

// dashes spells a flag as its help does: -o, --trace.
func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
