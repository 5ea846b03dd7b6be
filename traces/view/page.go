package view

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/traces"
)

// The HTML timeline: one self-contained page (no network access needed)
// with the trace's lanes drawn client-side from embedded JSON, and
// porcupine's linearization view as a second tab.

//go:embed viewassets/view.html viewassets/view.css viewassets/view.js
var viewAssets embed.FS

// Placeholders in viewassets/view.html, replaced in one pass so that no
// inserted text is scanned again.
const (
	phTitle = "{{LOCKSIM_TITLE}}"
	phCSS   = "/*{{LOCKSIM_CSS}}*/"
	phJS    = "/*{{LOCKSIM_JS}}*/"
	phData  = "{{LOCKSIM_DATA}}"
	phLin   = "{{LOCKSIM_LINEARIZATION}}"
)

// WriteView writes the HTML timeline of f to w, checking f's trace for
// the holds and key spans it draws. linearization is porcupine's page for
// the second tab; when it is empty, the tab says why (linErr, or that
// none was given).
func WriteView(w io.Writer, f *traces.File, linearization []byte, linErr error) error {
	return writeView(w, f, nil, "", linearization, linErr)
}

// writeView is WriteView with the checker's result on f's trace, when
// the caller has it, and what the trace leaves out (traces.Outcome.Partial).
func writeView(w io.Writer, f *traces.File, res *checker.Result, partial string, linearization []byte, linErr error) error {
	if f == nil || f.Trace == nil {
		return fmt.Errorf("view: no trace")
	}
	if res == nil {
		res = checker.Check(f.Trace, checker.Options{LeaseMs: f.Scenario.LeaseMs, Faults: f.Scenario.Faults})
	}
	page, err := viewAssets.ReadFile("viewassets/view.html")
	if err != nil {
		return err
	}
	css, err := viewAssets.ReadFile("viewassets/view.css")
	if err != nil {
		return err
	}
	js, err := viewAssets.ReadFile("viewassets/view.js")
	if err != nil {
		return err
	}
	vm := buildView(f, res)
	vm.Header.Partial = partial
	// encoding/json escapes <, > and & (and U+2028/9), so the data cannot
	// close its <script> element or open a comment.
	data, err := json.Marshal(vm)
	if err != nil {
		return fmt.Errorf("view: %v", err)
	}
	var lin string
	switch {
	case len(linearization) > 0:
		// The page goes into the srcdoc attribute of a sandboxed iframe,
		// escaped once for the attribute.
		lin = `<iframe id="lin-frame" title="porcupine linearization" sandbox="allow-scripts" srcdoc="` +
			html.EscapeString(string(deferRender(linearization))) + `"></iframe>`
	case linErr != nil:
		lin = `<p class="lin-missing">No linearization view: ` + html.EscapeString(linErr.Error()) + `</p>`
	default:
		lin = `<p class="lin-missing">No linearization view in this page.</p>`
	}
	r := strings.NewReplacer(
		phTitle, html.EscapeString(vm.Title),
		phCSS, string(css),
		phJS, string(js),
		phData, string(data),
		phLin, lin,
	)
	_, err = r.WriteString(w, string(page))
	return err
}

// WriteOutcomeView writes the timeline of a run with porcupine's
// linearization of its lock history; a history with nothing to linearize
// still gets its timeline, and the second tab says why it is empty.
func WriteOutcomeView(w io.Writer, o *traces.Outcome) error {
	var lin bytes.Buffer
	var linErr error
	if o.Result != nil {
		if linErr = o.Result.WriteLinearization(&lin); linErr != nil {
			lin.Reset()
		}
	}
	return writeView(w, o.File, o.Result, o.Partial, lin.Bytes(), linErr)
}

// ViewFile renders the timeline of f from its recorded trace, which must
// match its hash and check to its report (see traces.Recheck); nothing is
// run, so traces of users' own protocols render too.
func ViewFile(f *traces.File) ([]byte, error) {
	res, err := traces.Recheck(f)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := WriteOutcomeView(&out, &traces.Outcome{File: f, Result: res}); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// Palette is the :root block of the timeline's stylesheet (its colours),
// for the other locksim pages to look the same.
func Palette() string {
	css, _ := viewAssets.ReadFile("viewassets/view.css")
	root, _, ok := strings.Cut(string(css), "}")
	if !ok || !strings.HasPrefix(root, ":root") {
		return ""
	}
	return root + "}\n"
}

// porcupineRender is how porcupine's page (v1.3.1) starts drawing, at the
// end of its last script.
var porcupineRender = regexp.MustCompile(`(?s)\brender\(data\)(\s*</script>\s*</body>\s*</html>\s*)$`)

// deferRender makes porcupine's page wait until its frame is laid out
// before it draws. The page measures its labels with getBBox, which reads
// 0 while a freshly inserted srcdoc iframe has no layout yet (seen in
// Chromium); the labels then overlap. A page of another shape is left as
// it is.
func deferRender(page []byte) []byte {
	const wait = `;(function (tries) {
        // locksim: wait for layout (text measures 0 before it) to draw.
        function laidOut() {
          var ns = 'http://www.w3.org/2000/svg'
          var svg = document.createElementNS(ns, 'svg')
          var text = document.createElementNS(ns, 'text')
          text.textContent = 'x'
          svg.appendChild(text)
          document.body.appendChild(svg)
          var w = text.getBBox().width
          document.body.removeChild(svg)
          return w > 0
        }
        (function attempt() {
          if (laidOut() || tries-- <= 0) render(data)
          else setTimeout(attempt, 15)
        })()
      })(200)`
	if !porcupineRender.Match(page) {
		return page
	}
	return porcupineRender.ReplaceAll(page, []byte(wait+"$1"))
}
