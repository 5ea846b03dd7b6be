package report

import (
	"context"
	"html/template"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces/explore"
)

var (
	exploredOnce sync.Once
	explored     *explore.Summary
	exploreErr   error
)

// summary is one exploration of setnx-del under gc-pause, as the CLI runs
// it (swarm), shared by the tests.
func summary(t *testing.T) *explore.Summary {
	t.Helper()
	exploredOnce.Do(func() {
		base := protocols.Scenario{Protocol: "setnx-del", Workload: "unique-name", FaultKinds: []string{"gc-pause"}, Swarm: true}
		explored, exploreErr = explore.Explore(context.Background(), explore.ExploreConfig{Base: base, Runs: 150, SeedStart: 1}, nil)
	})
	if exploreErr != nil {
		t.Fatal(exploreErr)
	}
	return explored
}

func render(t *testing.T, s *explore.Summary, opt Options) string {
	t.Helper()
	b, err := Page(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReportShowsEveryDrawnParameter(t *testing.T) {
	s := summary(t)
	p := render(t, s, Options{})
	for _, id := range []string{explore.ParamPause, explore.ParamIntensity, explore.ParamClients, explore.ParamDamage} {
		if !strings.Contains(p, `id="plot-`+id+`"`) {
			t.Errorf("no chart of %s", id)
		}
	}
	// A single master draws neither lag nor down-after: listed, not drawn.
	for _, id := range []string{explore.ParamLag, explore.ParamDownAfter} {
		if strings.Contains(p, `id="plot-`+id+`"`) {
			t.Errorf("an empty chart of %s", id)
		}
	}
	if !strings.Contains(p, "Not drawn in the judged runs: replication lag") {
		t.Error("the parameters no run drew are not named")
	}
	// One bar per bucket with runs, each saying its counts.
	for _, pl := range s.Plots {
		for _, b := range pl.Buckets {
			if b.Runs > 0 && !strings.Contains(p, ">"+strconv.Itoa(b.Violating)+"/"+strconv.Itoa(b.Runs)+"<") {
				t.Errorf("%s bucket %s: no %d/%d over its bar", pl.Param, b.Label, b.Violating, b.Runs)
			}
		}
	}
	for _, c := range s.Causes {
		if !strings.Contains(p, c.Replay) {
			t.Errorf("cause %s: no replay command", c.Cause)
		}
	}
	for _, want := range []string{"duplicate inserts", "Dangerous states reached", "lost-while-held", ">lease<"} {
		if !strings.Contains(p, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, banned := range []string{"<script", "http://", "https://", "<img", "@import", "url("} {
		if strings.Contains(p, banned) {
			t.Errorf("report holds %q: it must need no network and run no script", banned)
		}
	}
}

// TestReportLinksTimelinesAndEscapes: a cause links its timeline when
// there is one, else gives the command that writes it; strings from a
// summary file (merge reads users' files) stay text.
func TestReportLinksTimelinesAndEscapes(t *testing.T) {
	s := *summary(t)
	s.Causes = []explore.CauseCount{
		{Property: "mutual-exclusion", Cause: "premature-expiry", Runs: 1, FirstSeed: 3, Trace: "out/a.json"},
		{Property: "resource", Cause: `<script>alert(1)</script>`, Runs: 1, FirstSeed: 4, Trace: "out/b.json"},
		{Property: "resource", Cause: "x", Runs: 1, FirstSeed: 5, Trace: "out/c.json", Replay: `locksim run "><img src=x>`},
	}
	s.FirstError = `<b onmouseover="x">`
	p := render(t, &s, Options{Timelines: map[string]string{"out/a.json": "out/a%20b.html", "out/c.json": "javascript:alert(1)"}, Shards: 3})
	if !strings.Contains(p, `href="out/a%20b.html"`) {
		t.Error("no link to the first cause's timeline")
	}
	if !strings.Contains(p, "locksim view out/b.json -o out/b.html") {
		t.Error("no view command for a trace without a timeline")
	}
	if strings.Contains(p, "<script>alert") || strings.Contains(p, "<img src=x>") || strings.Contains(p, `<b onmouseover`) ||
		strings.Contains(p, `href="javascript:`) {
		t.Error("a summary string became markup or a script link")
	}
	if !strings.Contains(p, "3 shards merged") {
		t.Error("the merged page does not say so")
	}
}

// TestReportHeadsCausesByProperty: the causes table groups its rows
// under each property's heading, the words `run` and the timeline print.
func TestReportHeadsCausesByProperty(t *testing.T) {
	s := *summary(t)
	s.Causes = []explore.CauseCount{
		{Property: checker.PropOwnership, Cause: checker.CauseForeignRelease, Runs: 2, FirstSeed: 3},
		{Property: checker.PropMutex, Cause: checker.CausePrematureExpiry, Runs: 5, FirstSeed: 1},
		{Property: checker.PropMutex, Cause: checker.CauseLostAfterFailover, Runs: 1, FirstSeed: 9},
	}
	p := render(t, &s, Options{})
	for _, prop := range []string{checker.PropOwnership, checker.PropMutex} {
		head := `<tr class="group"><th colspan="5">` + template.HTMLEscapeString(checker.Heading(prop)) + `</th></tr>`
		if n := strings.Count(p, head); n != 1 {
			t.Errorf("heading of %s %d times, want once", prop, n)
		}
	}
	if strings.Index(p, checker.CauseForeignRelease) > strings.Index(p, template.HTMLEscapeString(checker.Heading(checker.PropMutex))) {
		t.Error("an ownership cause is listed under mutual exclusion")
	}
}

// budgeted is an exploration of setnx-del under gc-pause whose event
// budget stopped most of its runs.
func budgeted(t *testing.T) *explore.Summary {
	t.Helper()
	base := protocols.Scenario{Protocol: "setnx-del", Workload: "unique-name", FaultKinds: []string{"gc-pause"}, Swarm: true,
		MaxEvents: 300}
	s, err := explore.Explore(context.Background(), explore.ExploreConfig{Base: base, Runs: 20, SeedStart: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReportRatesAreTheTexts: with runs an event budget stopped, the
// page's rates are over the judged runs, as explore's text writes them,
// and it says how many runs were not judged and why, in the same words.
func TestReportRatesAreTheTexts(t *testing.T) {
	s := budgeted(t)
	every := slices.IndexFunc(s.Causes, func(c explore.CauseCount) bool { return c.Runs == s.Violating })
	if s.Unknown == 0 || s.Violating == 0 || s.Violating != s.UnsafeRuns || every < 0 {
		t.Fatalf("want violating runs all unsafe and of one cause, and runs not judged: %d violating, %d unsafe, %+v, %d not judged",
			s.Violating, s.UnsafeRuns, s.Causes, s.Unknown)
	}
	rate := regexp.MustCompile(`^unsafe: \d+ of \d+ judged runs \(([0-9.]+%),`).FindStringSubmatch(s.Verdict.Text)
	if rate == nil || !strings.Contains(s.Verdict.Text, " not judged: ") {
		t.Fatalf("the text's verdict: %s", s.Verdict.Text)
	}
	p := render(t, s, Options{})
	for _, want := range []string{
		"violating (" + rate[1] + " of the judged runs)",
		"<b>" + s.Causes[every].Cause + `</b></td><td class="r">` + strconv.Itoa(s.Violating) + `</td><td class="r">` + rate[1] + "</td>",
		template.HTMLEscapeString(s.Verdict.Text),
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestReportChartsRateJudgedRuns: the charts' rates are over the judged
// runs too: a run not judged is in no bucket.
func TestReportChartsRateJudgedRuns(t *testing.T) {
	s := budgeted(t)
	p := render(t, s, Options{})
	for _, pl := range s.Plots {
		if pl.Param != explore.ParamClients { // drawn in every run
			continue
		}
		runs, violating := 0, 0
		for _, b := range pl.Buckets {
			runs, violating = runs+b.Runs, violating+b.Violating
		}
		judged := s.Runs - s.Errors - s.Unknown
		if s.Unknown == 0 || runs != judged || violating != s.Violating {
			t.Errorf("the clients plot counts %d runs, %d violating; %d of %d runs judged, %d violating", runs, violating, judged, s.Runs,
				s.Violating)
		}
		if want := template.HTMLEscapeString(pl.Title) + ` <span class="muted">(` + strconv.Itoa(judged) + " judged runs)"; !strings.Contains(p, want) {
			t.Errorf("the page lacks %q", want)
		}
		return
	}
	t.Fatal("no clients plot")
}
