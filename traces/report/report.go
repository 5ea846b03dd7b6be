// Package report renders an exploration's summary (explore.Summary, one
// exploration or merged shards) as one self-contained HTML page: counts,
// violation rate by cause, the rate against each drawn fault parameter,
// the damage and its spread, the dangerous states reached, and a link
// per cause to its first trace's timeline. Every number on the page is
// in the summary's JSON; the page needs no network and runs no script.
package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/traces/explore"
	"github.com/locksim/locksim/traces/view"
)

//go:embed report.html
var pageText string

//go:embed report.css
var pageCSS string

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"css":    func() template.CSS { return template.CSS(view.Palette() + pageCSS) },
	"f1":     func(v float64) string { return fmt.Sprintf("%.1f", v) },
	"plural": explore.Plural,
	"n":      func(v float64) string { return fmt.Sprintf("%.1f", v) },
	"add":    func(v, d float64) string { return fmt.Sprintf("%.1f", v+d) },
	"sub":    func(v, d float64) string { return fmt.Sprintf("%.1f", v-d) },
}).Parse(pageText))

// Options are what the page links to besides the summary.
type Options struct {
	// Timelines maps a cause's first trace (CauseCount.Trace) to the
	// href of its HTML timeline; a trace without one gets the command
	// that writes it.
	Timelines map[string]string
	// Shards is the number of summaries merged into this one (0 or 1:
	// a single exploration).
	Shards int
}

// Write writes the report of s to w.
func Write(w io.Writer, s *explore.Summary, opt Options) error {
	var buf bytes.Buffer
	if err := page.Execute(&buf, build(s, opt)); err != nil {
		return fmt.Errorf("report: %v", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// Page returns the report of s.
func Page(s *explore.Summary, opt Options) ([]byte, error) {
	var buf bytes.Buffer
	if err := Write(&buf, s, opt); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// model is what the template shows.
type model struct {
	S        *explore.Summary
	Faults   string
	Shards   int
	Rate     string // violating runs of the judged ones, as the verdict writes it; "": none judged
	Causes   []causeRow
	Charts   []chart
	Unused   []string // parameters no run drew
	Damage   []damageRow
	Harmless int
	Stale    bool
	Spread   chart
	Coverage []coverageRow
}

type causeRow struct {
	explore.CauseCount
	Heading  string // the property's heading, on the first row of its group
	Rate     string // of the judged runs
	Timeline string
	ViewCmd  string
}

type damageRow struct {
	Name string
	N    int
	Harm bool
}

type coverageRow struct {
	Name, Doc string
	Runs      int
	Rate      float64
}

func build(s *explore.Summary, opt Options) model {
	m := model{S: s, Faults: "none", Shards: opt.Shards}
	if len(s.Faults) > 0 {
		m.Faults = strings.Join(s.Faults, ", ")
	}
	m.Rate = s.Share(s.Violating)
	for _, c := range s.Causes {
		r := causeRow{CauseCount: c, Rate: s.Share(c.Runs), Timeline: opt.Timelines[c.Trace]}
		if n := len(m.Causes); n == 0 || m.Causes[n-1].Property != c.Property {
			r.Heading = checker.Heading(c.Property)
		}
		if c.Trace != "" && r.Timeline == "" {
			r.ViewCmd = "locksim view " + c.Trace + " -o " + strings.TrimSuffix(c.Trace, ".json") + ".html"
		}
		m.Causes = append(m.Causes, r)
	}
	for _, p := range s.Plots {
		c := rateChart(p, "violating runs")
		if c.Runs == 0 {
			m.Unused = append(m.Unused, p.Title)
			continue
		}
		m.Charts = append(m.Charts, c)
	}
	for _, d := range s.Damage.Sum.Counts() {
		if d.N > 0 {
			m.Damage = append(m.Damage, damageRow{Name: d.Other, N: d.N, Harm: d.Harm})
		}
	}
	m.Stale = s.Damage.Sum.StaleWritesAccepted > 0 || s.Damage.Sum.StaleWritesRejected > 0 || s.Damage.HarmlessStaleWrites > 0
	m.Harmless = s.Damage.HarmlessStaleWrites
	if s.Damage.RunsWithDamage > 0 {
		m.Spread = histogram(s.Damage.PerRun, "runs")
	}
	for _, c := range s.Coverage {
		m.Coverage = append(m.Coverage, coverageRow{Name: c.State, Doc: coverageDoc(c.State), Runs: c.Runs,
			Rate: percent(c.Runs, s.Runs)})
	}
	return m
}

// coverageDoc is the meaning of a dangerous state, by the checker's name.
func coverageDoc(name string) string {
	for _, st := range (checker.Coverage{}).States() {
		if st.Name == name {
			return st.Doc
		}
	}
	return ""
}

func percent(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// HarmlessLateGloss is the checker's gloss, for the template.
func (model) HarmlessLateGloss() string { return checker.HarmlessLateGloss }

// StaleWriteGloss is the checker's gloss, for the template.
func (model) StaleWriteGloss() string {
	return strings.ToUpper(checker.StaleWriteGloss[:1]) + checker.StaleWriteGloss[1:]
}
