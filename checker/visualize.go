package checker

import (
	"fmt"
	"html"
	"io"

	"github.com/anishathalye/porcupine"

	"github.com/locksim/locksim/sim"
)

// WriteLinearization writes porcupine's self-contained visualization of the
// lock history, with faults as annotations on their own rows.
func (res *Result) WriteLinearization(w io.Writer) error {
	if res.lockOps == 0 {
		return fmt.Errorf("no lock operations to visualize")
	}
	info := res.lockInfo
	info.AddAnnotations(faultAnnotations(res.trace))
	return porcupine.Visualize(res.lockModel, info, w)
}

// faultAnnotations puts every fault and key expiry of the trace on a row
// named after the party it hit. Descriptions are HTML-escaped: the page
// inserts them as markup.
func faultAnnotations(tr *sim.Trace) []porcupine.Annotation {
	var out []porcupine.Annotation
	for _, e := range tr.Events {
		var a porcupine.Annotation
		switch e.Kind {
		case sim.EvPause:
			a = porcupine.Annotation{Tag: "fault " + e.Party, Start: e.T, End: e.T + e.DurNs,
				Description: "GC pause " + fmtDur(e.DurNs), BackgroundColor: "#f4c7c3"}
		case sim.EvExpire:
			a = porcupine.Annotation{Tag: "redis " + e.Party, Start: e.T,
				Description: "expired " + e.Key, BackgroundColor: "#fce8b2"}
		default:
			continue
		}
		a.Tag = html.EscapeString(a.Tag)
		a.Description = html.EscapeString(a.Description)
		a.Details = html.EscapeString(fmt.Sprintf("%s at %s", a.Description, fmtMs(e.T)))
		out = append(out, a)
	}
	return out
}
