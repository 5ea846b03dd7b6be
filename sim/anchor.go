package sim

import (
	"strconv"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// armed is an anchored fault waiting for its anchor.
type armed struct {
	f     trace.Fault
	id    int
	apply applier
	seen  int // occurrences of the anchor's operation so far
	fired bool
}

// anchorOp fires the armed faults anchored to this operation event:
// process invoked (phase invoke) or got result (phase return) for an
// operation of kind. Only client histories reach here, so a run without
// anchors pays one length check per operation.
func (w *World) anchorOp(process, kind, phase, result string) {
	for _, a := range w.anchors {
		an := a.f.Anchor
		if a.fired || an.Party != process || an.Op != kind || an.Phase != phase ||
			(an.Result != "" && an.Result != result) {
			continue
		}
		a.seen++
		if a.seen < an.Nth {
			continue
		}
		a.fired = true
		at := w.now + time.Duration(an.AfterMs)*time.Millisecond
		w.rec.event(trace.FaultApplied(a.f.Target, "anchor", a.f.Kind+" at "+an.String()+" = "+
			strconv.FormatInt(int64(at/time.Millisecond), 10)+" ms", a.f.Dur()).WithFault(a.id))
		a.apply.apply(at)
	}
}
