// Package recorded reads lock histories recorded outside locksim (JSON
// Lines in locksim's documented format, or a Jepsen history.edn of a lock
// test) and checks them with the same checker as a simulated run.
//
// A history is a list of operation events, each an invoke or its
// completion (ok, fail, or info: outcome unknown, as in Jepsen), with
// times from one clock shared by every process. See docs/check.md.
package recorded

import (
	"cmp"
	"fmt"
	"math"
	"strconv"

	"github.com/locksim/locksim/sim/trace"
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
	ProcNum bool // the process was given as a number
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

// History is a parsed, validated history, held compactly: each
// operation (an invoke and its completion) as one record, the process
// and key names once. Its memory grows with the processes, the keys and
// the operations of the largest group of keys checked together, not
// with the events: the records wait in a spool, in memory while it is
// small and then in a temporary file. Close removes that file.
type History struct {
	names    []string // processes' and keys' names, by node
	procNode map[string]int32
	keyNode  map[string]int32
	isKey    []bool  // by node
	parent   []int32 // union-find over nodes: a process joins every key it touches
	keyOps   []int   // by node: the operations on a key
	keyBytes []int   // by node: their records' size in the spool
	spool    *spool
	pass     int // passBytes, but for tests
	events   int
	ops      int
	procs    int
	t0, tEnd int64
	// gap is the shortest time between two events of one process that
	// are not at one time (0: none): it sets the times' precision.
	gap int64
	// The lease the history's first acquire (by invoke time, process
	// name, then line) names, and that acquire's invoke.
	leaseMs       int64
	leaseAt       int64
	leaseProc     string
	leaseLine     int
	leaseAcquired bool
	// The shortest and the longest lease the acquires name (0: none).
	leaseMin, leaseMax int64
}

// Leases are the shortest and the longest lease h's acquires name, in
// ms (0, 0: none names one). Each key's holds are judged by their own
// acquire's lease.
func (h *History) Leases() (shortest, longest int64) { return h.leaseMin, h.leaseMax }

// Events is the number of events read (nemesis events of an EDN
// history left out).
func (h *History) Events() int { return h.events }

// Operations is the number of operations: invokes, each with its
// completion if it came.
func (h *History) Operations() int { return h.ops }

// Processes counts the processes of h.
func (h *History) Processes() int { return h.procs }

// Precision is how h's times print: fine enough to tell apart any two
// events of one process, tenths of a second at least.
func (h *History) Precision() trace.Precision { return trace.PrecisionFor(h.gap) }

// Close releases the spool's temporary file, if it has one.
func (h *History) Close() error { return h.spool.close() }

// reader pairs the events of a history as they come: a completion needs
// a pending invoke of the same f, an invoke needs none pending, and time
// never goes backwards within a process. It holds one pending invoke per
// process.
type reader struct {
	h     *History
	procs []procState // by node (keys' entries unused)
	buf   []byte
}

type procState struct {
	pending  Event
	waiting  bool
	lastTime int64
	seen     bool
	num      bool // its name was given as a number (on line first)
	first    int
}

// newReader starts a history whose spool keeps up to spoolLimit bytes
// in memory.
func newReader(spoolLimit int) *reader {
	return &reader{h: &History{procNode: map[string]int32{}, keyNode: map[string]int32{},
		spool: &spool{limit: spoolLimit}, pass: passBytes}}
}

// node is the node of a process's or key's name, made on first sight.
func (r *reader) node(name string, key bool) int32 {
	m := r.h.procNode
	if key {
		m = r.h.keyNode
	}
	if n, ok := m[name]; ok {
		return n
	}
	h := r.h
	n := int32(len(h.names))
	m[name] = n
	h.names = append(h.names, name)
	h.isKey = append(h.isKey, key)
	h.parent = append(h.parent, n)
	h.keyOps = append(h.keyOps, 0)
	h.keyBytes = append(h.keyBytes, 0)
	r.procs = append(r.procs, procState{})
	if !key {
		h.procs++
	}
	return n
}

// add takes the next event of the history.
func (r *reader) add(e *Event) error {
	h := r.h
	pn := r.node(e.Process, false)
	p := &r.procs[pn]
	if !p.seen {
		p.num, p.first = e.ProcNum, e.Line
	} else if p.num != e.ProcNum {
		way := map[bool]string{true: "a number", false: "a string"}
		return errorf(e.Line, "process %s is %s here but %s on line %d: name each process one way", e.Process, way[e.ProcNum], way[p.num], p.first)
	}
	if p.seen && e.Time < p.lastTime {
		return errorf(e.Line, "time goes backwards within process %s: %d after %d", e.Process, e.Time, p.lastTime)
	}
	if h.events == 0 {
		h.t0, h.tEnd = e.Time, e.Time
	}
	h.events++
	h.t0, h.tEnd = min(h.t0, e.Time), max(h.tEnd, e.Time)
	if d := e.Time - p.lastTime; p.seen && d > 0 && (h.gap == 0 || d < h.gap) {
		h.gap = d
	}
	p.seen, p.lastTime = true, e.Time
	if e.Type == TypeInvoke {
		if p.waiting {
			return errorf(e.Line, "process %s invokes %s while its %s (line %d) has not completed", e.Process, e.F, p.pending.F, p.pending.Line)
		}
		p.pending, p.waiting = *e, true
		return nil
	}
	if !p.waiting {
		return errorf(e.Line, "%s %s of process %s without a pending invoke", e.Type, e.F, e.Process)
	}
	if p.pending.F != e.F {
		return errorf(e.Line, "%s %s of process %s completes its %s (line %d)", e.Type, e.F, e.Process, p.pending.F, p.pending.Line)
	}
	p.waiting = false
	return r.record(pn, &p.pending, e)
}

// end ends the history: invokes still pending are operations whose
// outcome is unknown.
func (r *reader) end() (*History, error) {
	h := r.h
	if h.events == 0 {
		return nil, &Error{Msg: "no events in the history"}
	}
	if h.tEnd-h.t0 < 0 || h.tEnd-h.t0 > math.MaxInt64/2 {
		return nil, &Error{Msg: "the history's times span more than 292 years"}
	}
	for pn := range r.procs {
		if p := &r.procs[pn]; p.waiting {
			p.waiting = false
			if err := r.record(int32(pn), &p.pending, nil); err != nil {
				return nil, err
			}
		}
	}
	if err := h.spool.finish(); err != nil {
		return nil, err
	}
	return h, nil
}

// record spools the operation of invoke inv and completion d (nil: none).
func (r *reader) record(pn int32, inv, d *Event) error {
	h := r.h
	kn := r.node(inv.Key, true)
	h.union(pn, kn)
	o := op{f: inv.F, proc: pn, key: kn, call: inv.Time, invLine: inv.Line, lease: inv.LeaseMs,
		value: inv.Value, token: inv.Token}
	if d != nil {
		if (inv.F == FWrite || inv.F == FAcquire) && d.Token != "" {
			// The token the storage judged, or the lock granted, on
			// either line: both must agree when both give it.
			if inv.Token != "" && inv.Token != d.Token {
				return errorf(d.Line, "%s %s of process %s gives token %s, its invoke (line %d) token %s: a completion gives its invoke's token, or none",
					d.Type, inv.F, inv.Process, d.Token, inv.Line, inv.Token)
			}
			o.token = d.Token
		}
		o.result, o.ret, o.doneLine = d.Type, d.Time, d.Line
		if d.LeaseMs > 0 {
			o.lease = d.LeaseMs
		}
		switch {
		case inv.F == FRead && d.Null:
			o.value = "nil"
		case inv.F == FRead || inv.F != FWrite && !d.Null:
			o.value = d.Value // what the read saw; the token an acquire made
		}
	}
	if inv.F == FAcquire && o.lease > 0 {
		if h.leaseMin == 0 || o.lease < h.leaseMin {
			h.leaseMin = o.lease
		}
		h.leaseMax = max(h.leaseMax, o.lease)
	}
	// Acquires of different processes invoked at one time are concurrent:
	// the process's name, not the line, picks among them.
	if inv.F == FAcquire && o.lease > 0 && (!h.leaseAcquired || cmp.Or(cmp.Compare(o.call, h.leaseAt),
		cmp.Compare(inv.Process, h.leaseProc), cmp.Compare(o.invLine, h.leaseLine)) < 0) {
		h.leaseMs, h.leaseAt, h.leaseProc, h.leaseLine, h.leaseAcquired = o.lease, o.call, inv.Process, o.invLine, true
	}
	r.buf = o.append(r.buf[:0])
	h.ops++
	h.keyOps[kn]++
	h.keyBytes[kn] += len(r.buf)
	return h.spool.write(r.buf)
}

// root is the representative of node n's group.
func (h *History) root(n int32) int32 {
	for h.parent[n] != n {
		h.parent[n] = h.parent[h.parent[n]]
		n = h.parent[n]
	}
	return n
}

// union puts nodes a and b in one group; the earlier node stands for it.
func (h *History) union(a, b int32) {
	a, b = h.root(a), h.root(b)
	if a == b {
		return
	}
	if b < a {
		a, b = b, a
	}
	h.parent[b] = a
}
