package checker

import (
	"slices"
	"strconv"
	"strings"

	"github.com/locksim/locksim/sim/trace"
)

// CitedFault is a scheduled fault a violation's cited events trace back
// to: its 1-based place in the scenario's schedule (trace.Event.Fault) and,
// when the checker was given the schedule (Options.Faults), the entry.
type CitedFault struct {
	ID    int          `json:"id"`
	Entry *trace.Fault `json:"entry,omitempty"`
}

// Text renders the cite as "fault #2 (gc-pause:c1@1000+20000)".
func (c CitedFault) Text() string {
	s := "fault #" + strconv.Itoa(c.ID)
	if c.Entry != nil {
		s += " (" + trace.FormatFault(*c.Entry) + ")"
	}
	return s
}

// citeFaults names, on each violation, the scheduled faults behind the
// events it cites, in the explanation's text and in Faults. A violation
// that already names its faults (one kept from a recorded report) is left
// as it is.
func citeFaults(tr *trace.Trace, schedule []trace.Fault, vs []Violation) {
	for i := range vs {
		v := &vs[i]
		if len(v.Faults) > 0 {
			continue
		}
		var ids []int
		for _, e := range v.Events {
			if e >= 0 && e < len(tr.Events) && tr.Events[e].Fault > 0 {
				ids = append(ids, tr.Events[e].Fault)
			}
		}
		slices.Sort(ids)
		ids = slices.Compact(ids)
		if len(ids) == 0 {
			continue
		}
		var texts []string
		for _, id := range ids {
			c := CitedFault{ID: id}
			if id <= len(schedule) {
				c.Entry = &schedule[id-1]
			}
			v.Faults = append(v.Faults, c)
			texts = append(texts, c.Text())
		}
		v.Explanation = strings.TrimSpace(v.Explanation + " Faults cited: " + strings.Join(texts, ", ") + ".")
	}
}
