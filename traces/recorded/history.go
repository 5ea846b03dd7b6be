// Package recorded reads lock histories recorded outside locksim (JSON
// Lines in locksim's documented format, or a Jepsen history.edn of a lock
// test) and checks them with the same checker as a simulated run.
//
// A history is a list of operation events, each an invoke or its
// completion (ok, fail, or info: outcome unknown, as in Jepsen), with
// times from one clock shared by every process. See docs/check.md.
package recorded

import (
	"fmt"
	"strconv"
)

// Event types.
const (
	TypeInvoke = "invoke"
	TypeOK     = "ok"
	TypeFail   = "fail"
	TypeInfo   = "info" // the outcome is unknown: it may or may not have happened
)

// Operations.
const (
	FAcquire = "acquire"
	FRelease = "release"
	FRenew   = "renew"
	FRead    = "read"
	FWrite   = "write"
)

// Event is one line of a history.
type Event struct {
	Line    int // 1-based line of the input
	Process string
	Type    string
	F       string
	Key     string
	Value   string // "" when absent or null (Null says which)
	Null    bool   // value was null or absent
	LeaseMs int64  // 0: none given
	Token   string // fencing token as written, "" when absent
	Time    int64  // ns
}

// MaxLeaseMs is the longest lease a history may give: a year.
const MaxLeaseMs = 366 * 24 * 3600 * 1000

// Error is bad input: what is wrong and on which line (0: the input as
// a whole).
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return "line " + strconv.Itoa(e.Line) + ": " + e.Msg
}

func errorf(line int, format string, args ...any) *Error {
	return &Error{Line: line, Msg: fmt.Sprintf(format, args...)}
}

func validType(t string) bool {
	switch t {
	case TypeInvoke, TypeOK, TypeFail, TypeInfo:
		return true
	}
	return false
}

func validF(f string) bool {
	switch f {
	case FAcquire, FRelease, FRenew, FRead, FWrite:
		return true
	}
	return false
}

// History is a parsed, validated history: events in input order, and
// the operations they pair into, by invocation time.
type History struct {
	Events []Event
	Ops    []Op
}

// Op is an invoke paired with its completion. Done is -1 when the
// history ends before the completion arrived (the outcome is unknown).
type Op struct {
	Invoke, Done int // indexes into History.Events
}

// pair checks the per-process order of events and pairs each invoke with
// its completion: a completion needs a pending invoke of the same f, an
// invoke needs none pending, and time never goes backwards within a
// process.
func pair(events []Event) (*History, error) {
	type proc struct {
		pending  int // index of the pending invoke, -1
		lastTime int64
		seen     bool
	}
	procs := map[string]*proc{}
	h := &History{Events: events, Ops: make([]Op, 0, len(events)/2+1)}
	at := map[int]int{} // invoke index -> op index
	for i := range events {
		e := &events[i]
		p := procs[e.Process]
		if p == nil {
			p = &proc{pending: -1}
			procs[e.Process] = p
		}
		if p.seen && e.Time < p.lastTime {
			return nil, errorf(e.Line, "time goes backwards within process %s: %d after %d", e.Process, e.Time, p.lastTime)
		}
		p.seen, p.lastTime = true, e.Time
		if e.Type == TypeInvoke {
			if p.pending >= 0 {
				inv := events[p.pending]
				return nil, errorf(e.Line, "process %s invokes %s while its %s (line %d) has not completed", e.Process, e.F, inv.F, inv.Line)
			}
			p.pending = i
			at[i] = len(h.Ops)
			h.Ops = append(h.Ops, Op{Invoke: i, Done: -1})
			continue
		}
		if p.pending < 0 {
			return nil, errorf(e.Line, "%s %s of process %s without a pending invoke", e.Type, e.F, e.Process)
		}
		inv := events[p.pending]
		if inv.F != e.F {
			return nil, errorf(e.Line, "%s %s of process %s completes its %s (line %d)", e.Type, e.F, e.Process, inv.F, inv.Line)
		}
		h.Ops[at[p.pending]].Done = i
		delete(at, p.pending)
		p.pending = -1
	}
	return h, nil
}
