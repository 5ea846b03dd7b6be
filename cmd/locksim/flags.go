package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
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
// returns the positional arguments. A flag given an empty string is
// refused: every string flag names something.
func (fs *flagSet) parse(args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.usage(fs.help)
				return nil, errHelp
			}
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		if g, ok := f.Value.(flag.Getter); ok && err == nil {
			if s, ok := g.Get().(string); ok && strings.TrimSpace(s) == "" {
				err = fmt.Errorf("--%s must not be empty", f.Name)
			}
		}
	})
	return pos, err
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
		arg, text := flag.UnquoteUsage(f)
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
		fmt.Fprintf(w, "%-24s %s\n", line, text)
	})
	if c.notes != "" {
		fmt.Fprintf(w, "\n%s\n", c.notes)
	}
	fmt.Fprintf(w, "\nExample: %s\n%s\n", c.example, exitCodesLine)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// parseList splits the comma-separated value of flag name, refusing empty
// and repeated items.
func parseList(name, s string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		switch {
		case p == "":
			return nil, fmt.Errorf("--%s has an empty item in %q", name, s)
		case seen[p]:
			return nil, fmt.Errorf("--%s names %q twice", name, p)
		}
		seen[p] = true
		out = append(out, p)
	}
	return out, nil
}

// parseFaults reads a --faults value: "none" or a list of fault kinds.
func parseFaults(s string) ([]string, error) {
	kinds, err := parseList("faults", s)
	if err != nil {
		return nil, err
	}
	if len(kinds) == 1 && kinds[0] == "none" {
		return nil, nil
	}
	for _, k := range kinds {
		if k == "none" {
			return nil, errors.New(`--faults: "none" cannot be combined with fault kinds`)
		}
	}
	return kinds, nil
}

// inRange reports whether x is within [lo, hi]; NaN never is.
func inRange(x, lo, hi float64) bool { return x >= lo && x <= hi }

func parse(fs *flagSet, args []string) ([]string, error) { return fs.parse(args) }
