package checker

import (
	"fmt"
	"html"
	"io"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/locksim/locksim/sim/trace"
)

// WriteLinearization writes porcupine's self-contained visualization of the
// lock history, with faults as annotations on their own rows. It runs
// porcupine's verbose check for the page only (the verdict never comes
// from it), for at most a minute.
func (res *Result) WriteLinearization(w io.Writer) error {
	if len(res.lockOps) == 0 {
		return fmt.Errorf("no lock operations to visualize")
	}
	_, info := porcupine.CheckOperationsVerbose(res.lockModel, res.lockOps, time.Minute)
	canonicalPartials(info.PartialLinearizations())
	info.AddAnnotations(faultAnnotations(res.Precision, res.trace))
	return porcupine.Visualize(escaped(res.lockModel), info, w)
}

// canonicalPartials orders each partition's partial linearizations,
// longest first, then by their operations. porcupine 1.3.1 collects them
// from a map and sorts them by length alone, so two pages of one run
// differed; its slices are the info's own, so sorting them here fixes the
// order the page is drawn from.
func canonicalPartials(parts [][][]int) {
	for _, p := range parts {
		slices.SortFunc(p, func(a, b []int) int {
			if len(a) != len(b) {
				return len(b) - len(a)
			}
			return slices.Compare(a, b)
		})
	}
}

// escaped wraps a model so that the state descriptions it gives the page
// are HTML-escaped: porcupine 1.3.1 inserts those (and operation metadata,
// left empty) as markup in its tooltips, while operation descriptions,
// tags and annotation texts are set as text and must stay unescaped.
func escaped(m porcupine.Model) porcupine.Model {
	st := m.DescribeState
	m.DescribeState = func(s any) string { return html.EscapeString(st(s)) }
	m.DescribeOperationMetadata = func(any) string { return "" }
	return m
}

// annotation colours by fault family.
const (
	colPause  = "#f4c7c3"
	colNet    = "#d7c7f4"
	colNode   = "#f9cb9c"
	colClock  = "#b6d7a8"
	colExpire = "#fce8b2"
	colClient = "#cfe2f3"
)

// faultAnnotations puts every fault and key expiry of the trace on a row
// named after the party it hit. Every string is HTML-escaped.
func faultAnnotations(p trace.Precision, tr *trace.Trace) []porcupine.Annotation {
	var out []porcupine.Annotation
	for _, e := range tr.Events {
		tag, desc, col, end := "fault "+e.Party, "", colPause, e.T
		switch e.Kind {
		case trace.EvPause:
			desc, end = "GC pause "+p.Dur(e.DurNs), e.T+e.DurNs
		case trace.EvPartition:
			desc, col, end = e.Detail+" "+e.Party+" "+p.Dur(e.DurNs), colNet, e.T+e.DurNs
		case trace.EvHeal:
			desc, col = "heal "+e.Party, colNet
		case trace.EvPromote, trace.EvDemote, trace.EvMasterDown:
			tag, desc, col = "redis "+e.Party, e.Kind, colNode
			if e.Change == trace.KeyLost {
				desc = e.Kind + ": lost " + e.Key
			}
		case trace.EvClockJump:
			desc, col = fmt.Sprintf("clock jump %+.1f s", float64(e.DurNs)/1e9), colClock
		case trace.EvNodeCrash:
			tag, desc, col = "redis "+e.Party, "node crash", colNode
			if e.DurNs > 0 {
				end = e.T + e.DurNs
			}
		case trace.EvNodeStart:
			tag, desc, col = "redis "+e.Party, "restart", colNode
			if e.Change == trace.KeyLost {
				desc = "restart: lost " + e.Key
			}
		case trace.EvCrash:
			desc, col = "crash", colClient
		case trace.EvRestart:
			desc, col = "restart ("+e.Detail+")", colClient
		case trace.EvRetry, trace.EvTimeout:
			desc, col = e.Kind+" "+e.Detail, colClient
		case trace.EvExpire:
			tag, desc, col = "redis "+e.Party, "expired "+e.Key, colExpire
		default:
			continue
		}
		out = append(out, porcupine.Annotation{
			Tag: tag, Start: e.T, End: end, BackgroundColor: col,
			Description: desc,
			Details:     fmt.Sprintf("%s at %s", desc, p.At(e.T)),
		})
	}
	return out
}
