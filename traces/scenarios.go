package traces

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/internal/suggest"
	"github.com/locksim/locksim/protocols"
)

// Reference is a named reference timeline (DESIGN.md's list and published
// lock bugs) as an explicit scenario, with the verdict it must reproduce.
// Each lives in its own file under scenarios/, readable without Go.
type Reference struct {
	Name     string             `json:"name"`
	Summary  string             `json:"summary"`
	Story    string             `json:"story"`
	Bug      *Bug               `json:"bug,omitempty"`
	Expect   Expectation        `json:"expect"`
	Scenario protocols.Scenario `json:"scenario"`
}

// Bug is the published report a reference reproduces: where it was
// reported, which releases it affects and, when a release fixed it, the
// catalog protocol of that release, which must run the same scenario
// clean.
type Bug struct {
	ID            string `json:"id"` // library#issue, or the author's name for an essay
	Library       string `json:"library"`
	URL           string `json:"url"`
	Affected      string `json:"affected"`
	Fixed         string `json:"fixed,omitempty"`
	FixedProtocol string `json:"fixed_protocol,omitempty"`
	Cause         string `json:"cause"`
	// ExploreRuns is how many runs `locksim explore` needs, from its
	// defaults, to find the bug (cmd/locksim's
	// TestExploreFindsEachPublishedBug holds it to that).
	ExploreRuns int `json:"explore_runs"`
	// Mechanism is what the explanation of the reproduction must say,
	// phrase by phrase, all in one violation: how the bug breaks the lock,
	// read from the trace's events (TestBugExplanationsNameTheMechanism).
	Mechanism []string `json:"mechanism"`
}

// Expectation is the verdict a reference pins, and the property (mutual
// exclusion unless it says liveness), cause (and reason) of the violation
// it exists to show, with the argument.
type Expectation struct {
	Verdict  string `json:"verdict"`
	Property string `json:"property,omitempty"`
	Cause    string `json:"cause,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Why      string `json:"why"`
}

// Shows reports whether v is the violation e pins.
func (e Expectation) Shows(v checker.Violation) bool {
	return v.Property == cmp.Or(e.Property, checker.PropMutex) && v.Cause == e.Cause && (e.Reason == "" || v.Reason == e.Reason)
}

// ShowsIn reports whether rep has the violation e pins.
func (e Expectation) ShowsIn(rep checker.Report) bool {
	return slices.ContainsFunc(rep.Violations, e.Shows)
}

//go:embed scenarios/*.json
var scenarioFiles embed.FS

// references is read once from the embedded files; a malformed file is a
// build defect that every test reports.
var references, referencesErr = loadReferences()

func loadReferences() (map[string]Reference, error) {
	names, err := scenarioFiles.ReadDir("scenarios")
	if err != nil {
		return nil, err
	}
	out := make(map[string]Reference, len(names))
	for _, e := range names {
		r, err := parseReference(e.Name())
		if err != nil {
			return nil, err
		}
		out[r.Name] = r
	}
	return out, nil
}

func parseReference(file string) (Reference, error) {
	b, err := scenarioFiles.ReadFile(path.Join("scenarios", file))
	if err != nil {
		return Reference{}, err
	}
	var r Reference
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Reference{}, fmt.Errorf("scenarios/%s: %v", file, err)
	}
	if want := strings.TrimSuffix(file, ".json"); r.Name != want {
		return Reference{}, fmt.Errorf("scenarios/%s: name %q, want %q", file, r.Name, want)
	}
	if r.Expect.Verdict == "" || r.Expect.Why == "" {
		return Reference{}, fmt.Errorf("scenarios/%s: expect needs a verdict and why", file)
	}
	if b := r.Bug; b != nil && (b.ID == "" || b.Library == "" || b.URL == "" || b.Affected == "" || b.Cause == "" || len(b.Mechanism) == 0) {
		return Reference{}, fmt.Errorf("scenarios/%s: bug needs an id, library, url, affected releases, cause and mechanism", file)
	}
	return r, nil
}

// DefaultReference is what `locksim run` runs with no protocol given.
const DefaultReference = "pause-no-fencing"

// LookupReference returns the reference scenario called name.
func LookupReference(name string) (Reference, error) {
	if referencesErr != nil {
		return Reference{}, referencesErr
	}
	r, ok := references[name]
	if !ok {
		return Reference{}, fmt.Errorf("%v; see `locksim list`", suggest.Unknown("scenario", name, ReferenceNames()))
	}
	return r, nil
}

// References lists the reference scenarios by name.
func References() []Reference {
	out := make([]Reference, 0, len(references))
	for _, r := range references {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Bugs lists the references that reproduce a published bug, by name.
func Bugs() []Reference {
	var out []Reference
	for _, r := range References() {
		if r.Bug != nil {
			out = append(out, r)
		}
	}
	return out
}

// IsScenarioFile reports whether a --scenario value names a file rather
// than a reference: it ends in .json or names an existing file.
func IsScenarioFile(value string) bool {
	if strings.HasSuffix(value, ".json") {
		return true
	}
	st, err := os.Stat(value)
	return err == nil && !st.IsDir()
}

// ReadScenario reads the scenario of a scenario file (one JSON object of
// the scenario's fields, as `locksim run --print-scenario` writes it) or
// of a trace file (its embedded scenario, once the file is checked
// against its hash), of at most limit bytes. fromTrace says which it was:
// a trace's scenario is anyone's, and its cost is worth checking before
// it runs.
func ReadScenario(path string, limit int64) (sc protocols.Scenario, fromTrace bool, err error) {
	isTrace, err := looksLikeTrace(path, limit)
	if err != nil {
		return protocols.Scenario{}, false, err
	}
	if isTrace {
		f, err := ReadLimit(path, limit)
		if err != nil {
			return protocols.Scenario{}, true, err
		}
		return f.Scenario, true, nil
	}
	in, err := OpenInput(path, limit)
	if err != nil {
		return protocols.Scenario{}, false, fmt.Errorf("read scenario: %w", err)
	}
	defer in.Close()
	b, err := io.ReadAll(in)
	if err != nil {
		return protocols.Scenario{}, false, fmt.Errorf("%s: %w", path, err)
	}
	sc, err = protocols.ParseScenario(b)
	if err != nil {
		return protocols.Scenario{}, false, fmt.Errorf("%s: %w", path, err)
	}
	return sc, false, nil
}

// looksLikeTrace reads the first key of the file's object: a trace file
// starts with one of its own fields ("format" as locksim writes it).
func looksLikeTrace(path string, limit int64) (bool, error) {
	in, err := OpenInput(path, limit)
	if err != nil {
		return false, fmt.Errorf("read scenario: %w", err)
	}
	defer in.Close()
	dec := json.NewDecoder(in)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false, fmt.Errorf("%s: not a scenario or trace file (want a JSON object)", path)
	}
	tok, err := dec.Token()
	if err != nil {
		return false, nil // an empty or broken object: the scenario parser says what is wrong
	}
	switch tok {
	case "format", "trace", "trace_sha256", "report":
		return true, nil
	}
	return false, nil
}

// ReferenceNames lists the reference scenarios' names, sorted.
func ReferenceNames() []string {
	var out []string
	for _, r := range References() {
		out = append(out, r.Name)
	}
	return out
}
