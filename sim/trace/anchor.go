package trace

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/locksim/locksim/internal/suggest"
)

// Anchor places a fault relative to an operation in a client's history
// instead of at an absolute time: the fault starts AfterMs after the Nth
// (1-based) time Party invokes an operation of kind Op (Phase "invoke"),
// or after that operation returns with result Result (Phase "return";
// Result "" matches any). An anchor that never happens leaves its fault
// unapplied; the trace records when each anchor resolved.
type Anchor struct {
	Party   string `json:"party"`
	Op      string `json:"op"`
	Phase   string `json:"phase"`
	Result  string `json:"result,omitempty"`
	Nth     int    `json:"nth"`
	AfterMs int64  `json:"after_ms,omitempty"`
}

// Anchor phases.
const (
	PhaseInvoke = "invoke"
	PhaseReturn = "return"
)

// Check reports a malformed anchor.
func (a Anchor) Check() error {
	switch {
	case a.Party == "" || a.Op == "":
		return fmt.Errorf("anchor needs a party and an operation")
	case a.Phase != PhaseInvoke && a.Phase != PhaseReturn:
		return fmt.Errorf("anchor phase %q is neither %s nor %s%s", a.Phase, PhaseInvoke, PhaseReturn, phaseHint(a.Phase))
	case a.Nth < 1:
		return fmt.Errorf("anchor occurrence must be at least 1")
	case a.AfterMs < 0:
		return fmt.Errorf("anchor offset must not be negative")
	}
	return nil
}

// String renders the anchor as "c1's 2nd acquire return ok +0 ms".
func (a Anchor) String() string {
	var b strings.Builder
	b.WriteString(a.Party + "'s " + ordinal(a.Nth) + " " + a.Op + " " + a.Phase)
	if a.Result != "" {
		b.WriteString(" " + a.Result)
	}
	b.WriteString(" +" + strconv.FormatInt(a.AfterMs, 10) + " ms")
	return b.String()
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// phaseHint suggests the phase a misspelt one meant.
func phaseHint(p string) string {
	if best, ok := suggest.Nearest(p, []string{PhaseInvoke, PhaseReturn}); ok {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}
