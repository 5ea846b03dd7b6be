package view

import (
	"sort"
	"strconv"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

// The view model is what the HTML timeline draws: the raw events and
// operations (for tooltips), the checker's holds and the lock keys' lives
// on every node with their owner and TTL (checker.Result), and what is
// derived from them here, where it can be tested: lanes, each hold's
// lease window, fault shading, and the items each violation points at.
// The page's script only lays it out.

// Lane kinds.
const (
	laneThread  = "thread"  // one client thread: its operations, holds and leases
	laneNode    = "node"    // one Redis node: the lock keys' owner and TTL
	laneService = "service" // a protected service (database, storage)
	laneOther   = "other"   // any other party (failover controller, ...)
)

type viewModel struct {
	Title      string          `json:"title"`
	Header     viewHeader      `json:"header"`
	EndNs      int64           `json:"end_ns"`
	Lanes      []viewLane      `json:"lanes"`
	Events     []trace.Event   `json:"events"`
	EventLane  []int           `json:"event_lane"` // lane of each event, -1 if none
	Ops        []trace.Op      `json:"ops"`
	OpLane     []int           `json:"op_lane"`
	Holds      []viewHold      `json:"holds"`
	Keys       []viewKeySpan   `json:"keys"`
	Shades     []viewShade     `json:"shades"`
	Violations []viewViolation `json:"violations"`
	Scripts    []viewScript    `json:"scripts,omitempty"`
}

type viewHeader struct {
	Protocol string        `json:"protocol"`
	Workload string        `json:"workload"`
	Seed     uint64        `json:"seed"`
	Clients  int           `json:"clients"`
	Verdict  string        `json:"verdict"`
	Faults   []trace.Fault `json:"faults"`
	// FaultTexts says each fault as it happened (traces.DescribeFaults):
	// an anchored fault at the time it fired, with its anchor.
	FaultTexts  []string          `json:"fault_texts"`
	Damage      checker.Damage    `json:"damage"`
	Checked     []checker.Checked `json:"checked"`
	TraceSHA256 string            `json:"trace_sha256"`
	Stats       trace.Stats       `json:"stats"`
	LeaseMs     int64             `json:"lease_ms"`
	Partial     string            `json:"partial,omitempty"` // what the trace leaves out
}

type viewScript struct {
	SHA1 string `json:"sha1"`
	Body string `json:"body"`
}

type viewLane struct {
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Process string `json:"process,omitempty"` // thread lanes
	Color   int    `json:"color"`             // palette index (thread lanes, by process order)
	Rows    int    `json:"rows,omitempty"`    // node lanes: rows of key spans
	// Compact: a thread lane with no operations (a watchdog or helper
	// thread): only its faults and events are drawn.
	Compact bool `json:"compact,omitempty"`
	// FaultRows is how many rows the lane's fault strip needs so that
	// overlapping faults do not cover each other.
	FaultRows int `json:"fault_rows"`
}

// viewHold is one interval during which a client believed it held a lock,
// from its acquire's return to its release's call (the checker's holds),
// with the lease the lock actually had on Redis.
type viewHold struct {
	Lane    int    `json:"lane"`
	Client  string `json:"client"`
	Key     string `json:"key"`
	Acquire int    `json:"acquire"` // op id
	Release int    `json:"release"` // op id, -1 if never released
	Start   int64  `json:"start"`
	End     int64  `json:"end"` // EndNs if never released
	// Spans are the key spans this hold's acquire created (one per node
	// for a multi-master lock, more with replication).
	Spans []int `json:"spans"`
	// Quorum is how many master nodes must hold the key for the lease to
	// be valid (1 for a single master, a majority for N masters).
	Quorum int `json:"quorum"`
	// Lease lists the intervals during which at least Quorum serving
	// masters held the key for this client; NoLease the parts of the hold
	// outside them (the client believed it held a lock that was gone).
	Lease   [][2]int64 `json:"lease"`
	NoLease [][2]int64 `json:"no_lease"`
}

// viewKeySpan is one lifetime of a lock key on one node: from the event
// that created it to the one that ended it.
type viewKeySpan struct {
	Lane    int        `json:"lane"`
	Row     int        `json:"row"`
	Node    string     `json:"node"`
	Key     string     `json:"key"`
	Owner   string     `json:"owner,omitempty"` // client that created it ("" if unknown)
	Start   int64      `json:"start"`
	End     int64      `json:"end"`
	StartEv int        `json:"start_ev"`
	EndEv   int        `json:"end_ev"`  // -1 if it outlived the run
	EndHow  string     `json:"end_how"` // expired, deleted, lost, node down, end of run
	TTL     []ttlPoint `json:"ttl"`
}

// ttlPoint says the key's remaining TTL was TTL ns at T (-1: no TTL,
// -2: unknown) and falls by one ns per ns until the next point.
type ttlPoint struct {
	T   int64 `json:"t"`
	TTL int64 `json:"ttl"`
	Ev  int   `json:"ev"`
}

const (
	ttlNone    = -1
	ttlUnknown = -2
)

// viewShade is a fault interval on a lane: a pause, a partition, a crash.
type viewShade struct {
	Lane  int    `json:"lane"`
	Row   int    `json:"row"`  // row in the lane's fault strip
	Kind  string `json:"kind"` // pause, partition, crash, down
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	Ev    int    `json:"ev"`
	Label string `json:"label"`
}

type viewViolation struct {
	checker.Violation
	Heading string `json:"heading"` // its property's heading, as the text report prints it
	Holds   []int  `json:"holds"`   // the clients' overlapping holds
	Ops     []int  `json:"ops"`     // the resource operations involved
	Lanes   []int  `json:"lanes"`
	Start   int64  `json:"start"` // a window that shows the whole story
	End     int64  `json:"end"`
	AtNs    int64  `json:"at_ns"`
	// UntilNs is AtNs when the violation has no end.
	UntilNs int64 `json:"until_ns"`
}

// buildView derives the view model of f from its trace and res, the
// checker's result on it (holds, key spans).
func buildView(f *traces.File, res *checker.Result) *viewModel {
	return build(f, res).vm
}

// build is buildView, keeping the builder for tests to inspect.
func build(f *traces.File, res *checker.Result) *viewBuilder {
	tr := f.Trace
	vm := &viewModel{
		Events: tr.Events,
		Ops:    tr.Ops,
		Header: viewHeader{
			Protocol: f.Scenario.Protocol, Workload: f.Scenario.Workload, Seed: f.Scenario.Seed,
			Clients: f.Scenario.Clients, Verdict: f.Report.Verdict, Faults: f.Scenario.Faults, FaultTexts: traces.DescribeFaults(f),
			Damage: f.Report.Damage, Checked: f.Report.Checked, TraceSHA256: f.TraceSHA256,
			Stats: tr.Stats, LeaseMs: f.Scenario.LeaseMs,
		},
	}
	if vm.Events == nil {
		vm.Events = []trace.Event{}
	}
	if vm.Ops == nil {
		vm.Ops = []trace.Op{}
	}
	if vm.Header.Faults == nil {
		vm.Header.Faults = []trace.Fault{}
	}
	vm.Title = "locksim: " + f.Scenario.Protocol + " / " + f.Scenario.Workload +
		", seed " + strconv.FormatUint(f.Scenario.Seed, 10) + ": " + f.Report.Verdict
	for sha, body := range tr.Scripts {
		vm.Scripts = append(vm.Scripts, viewScript{SHA1: sha, Body: body})
	}
	sort.Slice(vm.Scripts, func(i, j int) bool { return vm.Scripts[i].SHA1 < vm.Scripts[j].SHA1 })
	vm.EndNs = endOf(tr)

	b := &viewBuilder{vm: vm, tr: tr, lanes: map[string]int{}, procLanes: map[string][]int{}}
	b.lanesOf()
	b.keySpans(res)
	b.roles()
	b.holds(res)
	b.shades()
	var grouped []checker.Violation // by property, as the text report lists them
	for _, g := range f.Report.Groups() {
		grouped = append(grouped, g.Violations...)
	}
	b.violations(grouped)
	return b
}

// endOf is the last instant the view must show.
func endOf(tr *trace.Trace) int64 {
	end := tr.Stats.SimNs
	for _, e := range tr.Events {
		end = max(end, e.T+max(e.DurNs, 0))
	}
	for _, op := range tr.Ops {
		end = max(end, op.Call, op.Return)
	}
	if end <= 0 {
		end = 1
	}
	return end
}

type viewBuilder struct {
	vm        *viewModel
	tr        *trace.Trace
	lanes     map[string]int   // thread client, node, service or other party -> lane
	procLanes map[string][]int // process -> its thread lanes
	nodes     map[string]bool
	lockKeys  map[string]bool
	// serving: per node, the intervals during which it was an up master.
	serving map[string][][2]int64
	masters map[string][][2]int64 // master role, up or down
	// failover: a replica was promoted, so the deployment is one master
	// at a time and a lease needs the key on one serving master.
	failover bool
	// holdsOf and opsOf are the holds and operations by client, for the
	// violations.
	holdsOf, opsOf map[string][]int
	// visits counts the key spans the holds' leases looked at, and the
	// holds and operations the violations looked at.
	visits int
}

var processKinds = map[string]bool{
	trace.EvThread: true, trace.EvPause: true, trace.EvResume: true, trace.EvCrash: true,
	trace.EvRestart: true, trace.EvNote: true, trace.EvTimeout: true, trace.EvRetry: true,
	trace.EvDiscover: true, trace.EvDeliver: true,
}

func processOf(client string) string {
	if p, _, ok := strings.Cut(client, "/"); ok {
		return p
	}
	return client
}

func fmtDurNs(ns int64) string {
	switch {
	case ns >= 1e9:
		return strconv.FormatFloat(float64(ns)/1e9, 'f', 1, 64) + " s"
	case ns >= 1e6:
		return strconv.FormatFloat(float64(ns)/1e6, 'f', 1, 64) + " ms"
	}
	return strconv.FormatFloat(float64(ns)/1e3, 'f', 1, 64) + " µs"
}

func setOf[V any](m map[string]V, f func(string, V) string) map[string]bool {
	out := map[string]bool{}
	for k, v := range m {
		out[f(k, v)] = true
	}
	return out
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return naturalLess(out[i], out[j]) })
	return out
}

// naturalLess orders names with embedded numbers by value: c2 < c10.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitsPrefix(a), digitsPrefix(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitsPrefix(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
