package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/explore"
	"github.com/locksim/locksim/traces/recorded"
	"github.com/locksim/locksim/traces/view"
)

// cmdCheck checks a history recorded outside locksim (JSON Lines or a
// Jepsen history.edn) with the checker of run, and prints what run
// prints: the verdict and each violation explained.
// traceHead is how a locksim trace file begins (its first field).
var traceHead = regexp.MustCompile(`^\s*\{\s*"format"\s*:`)

func cmdCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("check", stdout)
	format := fs.String("format", "", "read the history as `FORMAT`: jsonl or edn (default: edn for a .edn file, else jsonl)")
	html := fs.String("html", "", "write the HTML timeline (porcupine's linearization as a second tab) to `FILE`")
	failOn := registerFailOn(fs)
	maxMB := registerMaxInput(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return usageErr(stderr, "check", err)
	}
	if len(pos) != 1 {
		return usageErr(stderr, "check", errors.New("want exactly one HISTORY file, or - for standard input (e.g. locksim check history.jsonl)"))
	}
	path := pos[0]
	switch *format {
	case "":
		*format = recorded.FormatOf(path)
	case recorded.FormatJSONL, recorded.FormatEDN:
	default:
		return usageErr(stderr, "check", fmt.Errorf("--format %q: want jsonl or edn", *format))
	}
	limit, err := maxInputBytes(*maxMB)
	if err != nil {
		return usageErr(stderr, "check", err)
	}
	var in io.Reader = os.Stdin
	name := "stdin"
	if path != "-" {
		if err := checkOutputs([]string{path}, *html); err != nil {
			return usageErr(stderr, "check", err)
		}
		f, err := os.Open(path)
		if err != nil {
			return usageErr(stderr, "check", err)
		}
		defer f.Close()
		in, name = f, path
	}
	br := bufio.NewReader(in)
	lim := &limitedReader{r: br, left: limit}
	head, _ := br.Peek(64)
	h, err := recorded.Read(lim, *format)
	if lim.over {
		return usageErr(stderr, "check", fmt.Errorf("%s: larger than %d MB (--max-input-mb raises the cap)", name, limit>>20))
	}
	if err != nil && traceHead.Match(head) {
		file := name
		if path == "-" {
			file = "FILE"
		}
		return usageErr(stderr, "check", fmt.Errorf("%s is a locksim trace file, not a recorded history: replay it with locksim replay %s, or draw it with locksim view %s -o OUT.html", name, file, file))
	}
	if err != nil {
		return usageErr(stderr, "check", locate(name, err))
	}
	defer h.Close()
	// Each group of keys is checked apart and let go; the timeline draws
	// the history, or its groups with findings when it is large.
	var o, page *traces.Outcome
	if *html != "" {
		o, page, err = recorded.CheckForView(h, name)
	} else {
		o, err = recorded.Check(h, name)
	}
	if err != nil {
		return usageErr(stderr, "check", locate(name, err))
	}
	if page != nil {
		var buf bytes.Buffer
		if err := view.WriteOutcomeView(&buf, page); err != nil {
			return usageErr(stderr, "check", fmt.Errorf("--html: %v", err))
		}
		if err := traces.WriteAtomic(*html, buf.Bytes()); err != nil {
			return usageErr(stderr, "check", err)
		}
		fmt.Fprintf(stdout, "wrote %s\n", *html)
		if page.Partial != "" {
			fmt.Fprintf(stdout, "  %s\n", page.Partial)
		}
	}
	printChecked(stdout, o, h, name, *failOn)
	switch {
	case o.Fails(*failOn):
		return exitViolation
	case o.File.Report.Verdict == checker.VerdictUnknown:
		return exitUnknown
	}
	return exitOK
}

// locate puts the file name in front of a history error: FILE:LINE: reason.
func locate(name string, err error) error {
	var he *recorded.Error
	if errors.As(err, &he) {
		if he.Line > 0 {
			return fmt.Errorf("%s:%d: %s", name, he.Line, he.Msg)
		}
		return fmt.Errorf("%s: %s", name, he.Msg)
	}
	return fmt.Errorf("%s: %v", name, err)
}

// printChecked prints a recorded history's verdict as run prints a run's.
func printChecked(w io.Writer, o *traces.Outcome, h *recorded.History, name string, failOn checker.FailOn) {
	f := o.File
	lease := "no lease given"
	switch shortest, longest := h.Leases(); {
	case shortest != longest:
		lease = fmt.Sprintf("leases %d to %d ms", shortest, longest)
	case shortest > 0:
		lease = fmt.Sprintf("lease %d ms", shortest)
	}
	procs := fmt.Sprintf("%d processes", h.Processes())
	if h.Processes() == 1 {
		procs = "1 process"
	}
	fmt.Fprintf(w, "%s: recorded history %s, %s, %s, %s\n",
		strings.ToUpper(f.Report.Verdict), name, procs,
		explore.Plural(h.Operations(), "operation"), lease)
	printFindings(w, f.Report, "--html FILE draws them all")
	printPassesFailOn(w, f.Report, failOn)
	fmt.Fprintf(w, "  %d events over %s, checked in %d ms (the lock keys' lives on the server are inferred from them: see docs/check.md)\n",
		h.Events(), f.Report.Precision.Seconds(f.Trace.Stats.SimNs), o.Wall.Milliseconds())
}

// limitedReader reads at most left bytes and says when there was more.
type limitedReader struct {
	r    io.Reader
	left int64
	over bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		if n, _ := l.r.Read(one[:]); n > 0 {
			l.over = true
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}
