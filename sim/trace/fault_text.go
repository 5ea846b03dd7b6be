package trace

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// FaultSyntax is the text form of one fault (the --fault flag):
// KIND:TARGET@AT_MS+DUR_MS[=VALUE][~PARTY/OP/PHASE[/RESULT]#N+AFTER_MS],
// the part after ~ being the anchor.
const FaultSyntax = "KIND:TARGET@AT_MS+DUR_MS[=VALUE][~PARTY/OP/PHASE[/RESULT]#N+AFTER_MS]"

// FormatFault renders f in FaultSyntax.
func FormatFault(f Fault) string {
	s := fmt.Sprintf("%s:%s@%d+%d", f.Kind, f.Target, f.AtMs, f.DurMs)
	if f.Value != 0 {
		s += fmt.Sprintf("=%d", f.Value)
	}
	if a := f.Anchor; a != nil {
		s += "~" + a.Party + "/" + a.Op + "/" + a.Phase
		if a.Result != "" {
			s += "/" + a.Result
		}
		s += fmt.Sprintf("#%d+%d", a.Nth, a.AfterMs)
	}
	return s
}

// ParseFault reads a fault in FaultSyntax.
func ParseFault(s string) (Fault, error) {
	bad := fmt.Errorf("fault %q is not %s", s, FaultSyntax)
	s, anchor, anchored := strings.Cut(s, "~")
	kind, rest, ok1 := strings.Cut(s, ":")
	i := strings.LastIndex(rest, "@")
	if !ok1 || i < 1 || kind == "" {
		return Fault{}, bad
	}
	f := Fault{Kind: kind, Target: rest[:i]}
	timing, value, hasValue := strings.Cut(rest[i+1:], "=")
	at, dur, ok2 := strings.Cut(timing, "+")
	var err1, err2, err3 error
	f.AtMs, err1 = strconv.ParseInt(at, 10, 64)
	f.DurMs, err2 = strconv.ParseInt(dur, 10, 64)
	if hasValue {
		f.Value, err3 = strconv.ParseInt(value, 10, 64)
	}
	if !ok2 || err1 != nil || err2 != nil || err3 != nil || f.AtMs < 0 || f.DurMs < 0 {
		return Fault{}, bad
	}
	if anchored {
		a, err := parseAnchor(anchor)
		if errors.Is(err, errBadAnchor) {
			return Fault{}, bad
		}
		if err != nil {
			return Fault{}, err // (what is wrong with it: the caller names the fault)
		}
		f.Anchor = &a
	}
	return f, nil
}

// errBadAnchor is an anchor that does not follow the syntax at all.
var errBadAnchor = errors.New("bad anchor")

func parseAnchor(s string) (Anchor, error) {
	point, nums, ok := strings.Cut(s, "#")
	nth, after, ok2 := strings.Cut(nums, "+")
	parts := strings.Split(point, "/")
	if !ok || !ok2 || len(parts) < 3 || len(parts) > 4 {
		return Anchor{}, errBadAnchor
	}
	a := Anchor{Party: parts[0], Op: parts[1], Phase: parts[2]}
	if len(parts) == 4 {
		a.Result = parts[3]
	}
	var err1, err2 error
	a.Nth, err1 = strconv.Atoi(nth)
	a.AfterMs, err2 = strconv.ParseInt(after, 10, 64)
	if err1 != nil || err2 != nil {
		return Anchor{}, errBadAnchor
	}
	return a, a.Check()
}
