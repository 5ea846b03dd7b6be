package traces

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// The view model is what the HTML timeline draws: the raw events and
// operations (for tooltips) plus what is derived from them here, where it
// can be tested: lanes, holds and their lease windows, the lock key's life
// on every node with its owner and TTL, fault shading, and the items each
// violation points at. The page's script only lays it out.

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
	Events     []sim.Event     `json:"events"`
	EventLane  []int           `json:"event_lane"` // lane of each event, -1 if none
	Ops        []sim.Op        `json:"ops"`
	OpLane     []int           `json:"op_lane"`
	Holds      []viewHold      `json:"holds"`
	Keys       []viewKeySpan   `json:"keys"`
	Shades     []viewShade     `json:"shades"`
	Violations []viewViolation `json:"violations"`
	Scripts    []viewScript    `json:"scripts,omitempty"`
}

type viewHeader struct {
	Protocol    string            `json:"protocol"`
	Workload    string            `json:"workload"`
	Seed        uint64            `json:"seed"`
	Clients     int               `json:"clients"`
	Verdict     string            `json:"verdict"`
	Faults      []sim.Fault       `json:"faults"`
	Damage      checker.Damage    `json:"damage"`
	Checked     []checker.Checked `json:"checked"`
	TraceSHA256 string            `json:"trace_sha256"`
	Stats       sim.Stats         `json:"stats"`
	LeaseMs     int64             `json:"lease_ms"`
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
	Holds []int `json:"holds"` // the clients' overlapping holds
	Ops   []int `json:"ops"`   // the resource operations involved
	Lanes []int `json:"lanes"`
	Start int64 `json:"start"` // a window that shows the whole story
	End   int64 `json:"end"`
	AtNs  int64 `json:"at_ns"`
	// UntilNs is AtNs when the violation has no end.
	UntilNs int64 `json:"until_ns"`
}

// buildView derives the view model of f.
func buildView(f *File) *viewModel {
	tr := f.Trace
	vm := &viewModel{
		Events: tr.Events,
		Ops:    tr.Ops,
		Header: viewHeader{
			Protocol: f.Scenario.Protocol, Workload: f.Scenario.Workload, Seed: f.Scenario.Seed,
			Clients: f.Scenario.Clients, Verdict: f.Report.Verdict, Faults: f.Scenario.Faults,
			Damage: f.Report.Damage, Checked: f.Report.Checked, TraceSHA256: f.TraceSHA256,
			Stats: tr.Stats, LeaseMs: f.Scenario.LeaseMs,
		},
	}
	if vm.Events == nil {
		vm.Events = []sim.Event{}
	}
	if vm.Ops == nil {
		vm.Ops = []sim.Op{}
	}
	if vm.Header.Faults == nil {
		vm.Header.Faults = []sim.Fault{}
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
	b.keySpans()
	b.roles()
	b.holds()
	b.shades()
	b.violations(f.Report.Violations)
	return vm
}

// endOf is the last instant the view must show.
func endOf(tr *sim.Trace) int64 {
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
	tr        *sim.Trace
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
}

var nodeKinds = map[string]bool{
	sim.EvCommand: true, sim.EvExpire: true, sim.EvReplicate: true, sim.EvPromote: true,
	sim.EvDemote: true, sim.EvNodeCrash: true, sim.EvNodeStart: true, sim.EvPublish: true,
}

var processKinds = map[string]bool{
	sim.EvThread: true, sim.EvPause: true, sim.EvResume: true, sim.EvCrash: true,
	sim.EvRestart: true, sim.EvNote: true, sim.EvTimeout: true, sim.EvRetry: true,
	sim.EvDiscover: true, sim.EvDeliver: true,
}

func processOf(client string) string {
	if p, _, ok := strings.Cut(client, "/"); ok {
		return p
	}
	return client
}

// lanesOf lays out the lanes: client threads grouped by process, then
// Redis nodes, then services, then any other party; each group in natural
// name order.
func (b *viewBuilder) lanesOf() {
	tr := b.tr
	b.nodes = map[string]bool{}
	b.lockKeys = map[string]bool{}
	procs := map[string]bool{}
	threads := map[string]string{} // client -> process
	services := map[string]bool{}
	for _, op := range tr.Ops {
		p := op.Process
		if p == "" {
			p = processOf(op.Client)
		}
		procs[p] = true
		threads[op.Client] = p
		switch op.Kind {
		case model.OpAcquire, model.OpRelease, model.OpRenew:
			b.lockKeys[op.Key] = true
		}
	}
	for _, e := range tr.Events {
		switch {
		case nodeKinds[e.Kind]:
			b.nodes[e.Party] = true
		case e.Kind == sim.EvService:
			services[e.Party] = true
		case processKinds[e.Kind]:
			procs[e.Party] = true
		}
		if e.Client != "" && (processKinds[e.Kind] || e.Kind == sim.EvThread) {
			threads[e.Client] = processOf(e.Client)
		}
	}
	for n := range b.nodes {
		delete(procs, n)
	}
	// A process with no thread of its own still gets a lane.
	hasThread := map[string]bool{}
	for _, p := range threads {
		hasThread[p] = true
	}
	for p := range procs {
		if !hasThread[p] {
			threads[p] = p
		}
	}
	others := map[string]bool{}
	for _, e := range tr.Events {
		if e.Party == "" || b.nodes[e.Party] || services[e.Party] || procs[e.Party] || isLink(e.Party) {
			continue
		}
		if _, ok := threads[e.Party]; ok {
			continue
		}
		others[e.Party] = true
	}

	procNames := sortedNames(setOf(threads, func(_, p string) string { return p }))
	color := map[string]int{}
	for i, p := range procNames {
		color[p] = i
	}
	clients := make([]string, 0, len(threads))
	for c := range threads {
		clients = append(clients, c)
	}
	sort.Slice(clients, func(i, j int) bool {
		pi, pj := threads[clients[i]], threads[clients[j]]
		if pi != pj {
			return naturalLess(pi, pj)
		}
		return naturalLess(clients[i], clients[j])
	})
	add := func(l viewLane) int {
		b.vm.Lanes = append(b.vm.Lanes, l)
		return len(b.vm.Lanes) - 1
	}
	for _, c := range clients {
		p := threads[c]
		i := add(viewLane{Kind: laneThread, Name: c, Process: p, Color: color[p]})
		b.lanes[c] = i
		b.procLanes[p] = append(b.procLanes[p], i)
	}
	for _, n := range sortedNames(b.nodes) {
		b.lanes[n] = add(viewLane{Kind: laneNode, Name: n, Rows: 1})
	}
	for _, s := range sortedNames(services) {
		b.lanes[s] = add(viewLane{Kind: laneService, Name: s})
	}
	for _, o := range sortedNames(others) {
		b.lanes[o] = add(viewLane{Kind: laneOther, Name: o})
	}

	b.vm.OpLane = make([]int, len(tr.Ops))
	hasOps := map[int]bool{}
	for i, op := range tr.Ops {
		b.vm.OpLane[i] = b.laneOf(op.Client)
		hasOps[b.vm.OpLane[i]] = true
	}
	for i := range b.vm.Lanes {
		b.vm.Lanes[i].Compact = b.vm.Lanes[i].Kind == laneThread && !hasOps[i]
	}
	b.vm.EventLane = make([]int, len(tr.Events))
	for i, e := range tr.Events {
		b.vm.EventLane[i] = b.eventLane(e)
	}
}

// eventLane places an event: node and service events on their party's
// lane, a thread's own events on its lane, a process's on its first
// thread's lane.
func (b *viewBuilder) eventLane(e sim.Event) int {
	if b.nodes[e.Party] || e.Kind == sim.EvService {
		return b.laneOf(e.Party)
	}
	if e.Client != "" {
		if l, ok := b.lanes[e.Client]; ok {
			return l
		}
	}
	if ends := linkEnds(e.Party); ends != nil {
		return b.laneOf(ends[0])
	}
	return b.laneOf(e.Party)
}

// laneOf returns the lane of a client, node or party; for a process, its
// first thread's lane.
func (b *viewBuilder) laneOf(name string) int {
	if l, ok := b.lanes[name]; ok {
		return l
	}
	if ls := b.procLanes[name]; len(ls) > 0 {
		return ls[0]
	}
	return -1
}

// partyLanes returns every lane a fault on party hits: a process's
// threads, a node, a service, or both ends of a link ("a->b", "a<->b").
func (b *viewBuilder) partyLanes(party string) []int {
	if ends := linkEnds(party); ends != nil {
		var out []int
		for _, p := range ends {
			out = append(out, b.partyLanes(p)...)
		}
		return out
	}
	if ls := b.procLanes[party]; len(ls) > 0 {
		return ls
	}
	if l, ok := b.lanes[party]; ok {
		return []int{l}
	}
	return nil
}

func isLink(party string) bool { return strings.Contains(party, "->") }

// linkEnds splits a link name ("a->b" one way, "a<->b" both ways) into its
// two parties; nil for anything else.
func linkEnds(party string) []string {
	for _, sep := range []string{"<->", "->"} {
		if a, c, ok := strings.Cut(party, sep); ok {
			return []string{a, c}
		}
	}
	return nil
}

func isEnd(change string) bool {
	return change == sim.KeyExpired || change == sim.KeyDeleted || change == sim.KeyLost
}

// keySpans follows every lock key on every node through the events that
// carry a Change, and the node's crashes and restarts.
func (b *viewBuilder) keySpans() {
	tr := b.tr
	type nk struct{ node, key string }
	open := map[nk]int{}            // -> index in Keys
	suspended := map[string][]int{} // node -> spans cut by its crash
	vm := b.vm
	lastOwner := map[string]string{} // key -> owner of its latest span anywhere
	closeSpan := func(i int, t int64, ev int, how string) {
		s := &vm.Keys[i]
		s.End, s.EndEv, s.EndHow = t, ev, how
		if how == sim.KeyExpired && len(s.TTL) > 0 {
			// The expiry is ground truth: the TTL after the last change
			// ran out exactly here.
			last := &s.TTL[len(s.TTL)-1]
			last.TTL = t - last.T
		}
		delete(open, nk{s.Node, s.Key})
	}
	openSpan := func(node, key, owner string, t int64, ev int, ttl int64) {
		vm.Keys = append(vm.Keys, viewKeySpan{Lane: b.laneOf(node), Node: node, Key: key, Owner: owner,
			Start: t, End: vm.EndNs, StartEv: ev, EndEv: -1, EndHow: "end of run",
			TTL: []ttlPoint{{T: t, TTL: ttl, Ev: ev}}})
		open[nk{node, key}] = len(vm.Keys) - 1
		if owner != "" {
			lastOwner[key] = owner
		}
	}
	for i, e := range tr.Events {
		if !b.nodes[e.Party] {
			continue
		}
		switch e.Kind {
		case sim.EvNodeCrash:
			var cut []int
			for k, si := range open {
				if k.node == e.Party {
					cut = append(cut, si)
				}
			}
			sort.Ints(cut)
			for _, si := range cut {
				closeSpan(si, e.T, i, "node down")
			}
			suspended[e.Party] = append(suspended[e.Party], cut...)
			continue
		case sim.EvNodeStart:
			// Keys the node kept across the restart come back; the ones
			// it lost carry Change=lost at the same instant.
			lost := map[string]bool{}
			for j := i; j < len(tr.Events) && tr.Events[j].T == e.T; j++ {
				if o := tr.Events[j]; o.Party == e.Party && o.Kind == sim.EvNodeStart && o.Change == sim.KeyLost {
					lost[o.Key] = true
				}
			}
			for _, si := range suspended[e.Party] {
				s := vm.Keys[si]
				if lost[s.Key] {
					continue
				}
				if _, isOpen := open[nk{s.Node, s.Key}]; isOpen {
					continue
				}
				openSpan(s.Node, s.Key, s.Owner, e.T, i, ttlUnknown)
			}
			delete(suspended, e.Party)
		case sim.EvClockJump:
			for k, si := range open {
				if k.node != e.Party {
					continue
				}
				s := &vm.Keys[si]
				if last := s.TTL[len(s.TTL)-1]; last.TTL >= 0 {
					s.TTL = append(s.TTL, ttlPoint{T: e.T, TTL: max(last.TTL-(e.T-last.T)-e.DurNs, 0), Ev: i})
				}
			}
			continue
		}
		if !b.lockKeys[e.Key] {
			continue
		}
		k := nk{e.Party, e.Key}
		si, isOpen := open[k]
		switch {
		case e.Change == sim.KeyCreated:
			if isOpen {
				closeSpan(si, e.T, i, "overwritten")
			}
			owner := e.Client
			if owner == "" {
				owner = lastOwner[e.Key]
			}
			ttl, known := ttlOf(e)
			if !known {
				ttl = ttlUnknown
			}
			openSpan(e.Party, e.Key, owner, e.T, i, ttl)
		case isEnd(e.Change):
			if isOpen {
				closeSpan(si, e.T, i, e.Change)
			}
		case isOpen && e.Kind != sim.EvExpire:
			if ttl, known := ttlOf(e); known {
				s := &vm.Keys[si]
				s.TTL = append(s.TTL, ttlPoint{T: e.T, TTL: ttl, Ev: i})
			} else if mayTouchTTL(e, vm.Keys[si].Owner) {
				s := &vm.Keys[si]
				s.TTL = append(s.TTL, ttlPoint{T: e.T, TTL: ttlUnknown, Ev: i})
			}
		}
	}
	// Rows: pack each node's spans so that overlapping ones do not collide.
	rowEnd := map[string][]int64{}
	order := make([]int, len(vm.Keys))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, c int) bool { return vm.Keys[order[a]].Start < vm.Keys[order[c]].Start })
	byKeyRow := map[nk]int{}
	for _, i := range order {
		s := &vm.Keys[i]
		ends := rowEnd[s.Node]
		row := -1
		// Keep a key on the row it had before when that row is free.
		if r, ok := byKeyRow[nk{s.Node, s.Key}]; ok && ends[r] <= s.Start {
			row = r
		}
		for r := 0; row < 0 && r < len(ends); r++ {
			if ends[r] <= s.Start {
				row = r
			}
		}
		if row < 0 {
			row = len(ends)
			ends = append(ends, 0)
		}
		ends[row] = s.End
		rowEnd[s.Node] = ends
		byKeyRow[nk{s.Node, s.Key}] = row
		s.Row = row
		if l := s.Lane; l >= 0 && row+1 > vm.Lanes[l].Rows {
			vm.Lanes[l].Rows = row + 1
		}
	}
}

// ttlOf reads the TTL a successful command set on its key.
func ttlOf(e sim.Event) (int64, bool) {
	if len(e.Args) < 2 || strings.HasPrefix(e.Reply, "(error)") || strings.HasPrefix(e.Reply, "ERR") {
		return 0, false
	}
	num := func(s string, unit int64) (int64, bool) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 || v > math.MaxInt64/unit {
			return 0, false
		}
		return v * unit, true
	}
	const sec, ms = int64(1e9), int64(1e6)
	args := e.Args
	switch strings.ToUpper(args[0]) {
	case "SET":
		if e.Reply == "(nil)" && e.Change != sim.KeyCreated {
			return 0, false // NX or XX refused
		}
		for i := 3; i < len(args); i++ {
			switch strings.ToUpper(args[i]) {
			case "EX":
				if i+1 < len(args) {
					return num(args[i+1], sec)
				}
			case "PX":
				if i+1 < len(args) {
					return num(args[i+1], ms)
				}
			case "KEEPTTL", "EXAT", "PXAT":
				return 0, false
			}
		}
		return ttlNone, true
	case "SETEX":
		if len(args) > 2 {
			return num(args[2], sec)
		}
	case "PSETEX":
		if len(args) > 2 {
			return num(args[2], ms)
		}
	case "EXPIRE", "PEXPIRE":
		if e.Reply != "(integer) 1" || len(args) < 3 {
			return 0, false
		}
		if strings.EqualFold(args[0], "EXPIRE") {
			return num(args[2], sec)
		}
		return num(args[2], ms)
	case "PERSIST":
		if e.Reply == "(integer) 1" {
			return ttlNone, true
		}
	}
	return 0, false
}

// mayTouchTTL reports whether a command could have changed its key's TTL
// in a way ttlOf cannot read: a replicated write, an absolute expiry, or
// a script the owner ran (a renewal) that did not answer nil or 0.
func mayTouchTTL(e sim.Event, owner string) bool {
	if e.Kind == sim.EvReplicate {
		return true
	}
	if len(e.Args) == 0 || e.Reply == "(nil)" || e.Reply == "(integer) 0" || strings.HasPrefix(e.Reply, "(error)") {
		return false
	}
	switch strings.ToUpper(e.Args[0]) {
	case "EXPIREAT", "PEXPIREAT", "GETEX", "RESTORE":
		return true
	case "SET":
		for _, a := range e.Args[3:] {
			if strings.EqualFold(a, "KEEPTTL") {
				return false
			}
		}
		return true
	case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL":
		return owner != "" && e.Client == owner
	}
	return false
}

// roles finds when each node served as an up master: a node is a master
// from the start when its first role change is a demotion, or when it has
// none and clients sent it commands; a promotion makes it one, a demotion
// ends it; a crash takes it down until it starts again.
func (b *viewBuilder) roles() {
	tr := b.tr
	end := b.vm.EndNs
	b.serving = map[string][][2]int64{}
	b.masters = map[string][][2]int64{}
	for _, n := range sortedNames(b.nodes) {
		type change struct {
			t    int64
			kind string
		}
		var changes []change
		clientCmds := false
		for _, e := range tr.Events {
			if e.Party != n {
				continue
			}
			switch e.Kind {
			case sim.EvPromote, sim.EvDemote, sim.EvNodeCrash, sim.EvNodeStart:
				if e.Kind == sim.EvPromote {
					b.failover = true
				}
				if len(changes) == 0 || changes[len(changes)-1] != (change{e.T, e.Kind}) {
					changes = append(changes, change{e.T, e.Kind})
				}
			case sim.EvCommand:
				if e.Client != "" {
					clientCmds = true
				}
			}
		}
		master := clientCmds
		for _, c := range changes {
			if c.kind == sim.EvPromote {
				master = false
				break
			}
			if c.kind == sim.EvDemote {
				master = true
				break
			}
		}
		up := true
		var serveFrom, masterFrom int64 = 0, 0
		flush := func(t int64) {
			if master && up && t > serveFrom {
				b.serving[n] = append(b.serving[n], [2]int64{serveFrom, t})
			}
		}
		for _, c := range changes {
			flush(c.t)
			wasMaster := master
			switch c.kind {
			case sim.EvPromote:
				master = true
			case sim.EvDemote:
				master = false
			case sim.EvNodeCrash:
				up = false
			case sim.EvNodeStart:
				up = true
			}
			if wasMaster && !master {
				b.masters[n] = append(b.masters[n], [2]int64{masterFrom, c.t})
			}
			if !wasMaster && master {
				masterFrom = c.t
			}
			serveFrom = c.t
		}
		flush(end + 1)
		if master {
			b.masters[n] = append(b.masters[n], [2]int64{masterFrom, end + 1})
		}
	}
}

// holds mirrors the checker's holds and measures each one's lease.
func (b *viewBuilder) holds() {
	vm := b.vm
	open := map[[2]string]int{}
	for _, op := range b.tr.Ops {
		k := [2]string{op.Client, op.Key}
		switch op.Kind {
		case model.OpAcquire:
			if op.Result == model.ResOK && !op.Open() {
				open[k] = len(vm.Holds)
				vm.Holds = append(vm.Holds, viewHold{Lane: b.laneOf(op.Client), Client: op.Client, Key: op.Key,
					Acquire: op.ID, Release: -1, Start: op.Return, End: vm.EndNs})
			}
		case model.OpRelease:
			if i, ok := open[k]; ok {
				vm.Holds[i].Release = op.ID
				vm.Holds[i].End = op.Call
				delete(open, k)
			}
		}
	}
	for i := range vm.Holds {
		b.lease(&vm.Holds[i])
	}
}

func (b *viewBuilder) lease(h *viewHold) {
	acq := b.tr.Ops[h.Acquire]
	h.Spans = []int{}
	h.Quorum = 1
	if !b.failover {
		// Independent masters (Redlock): a majority of them, counting
		// the ones that are down.
		masters := 0
		for _, n := range sortedNames(b.nodes) {
			if contains(b.masters[n], acq.Return) {
				masters++
			}
		}
		h.Quorum = max(masters, 1)/2 + 1
	}
	var iv [][2]int64
	for i, s := range b.vm.Keys {
		if s.Key != h.Key || s.Owner != h.Client || s.Start < acq.Call || s.Start > h.End {
			continue
		}
		h.Spans = append(h.Spans, i)
		for _, w := range b.serving[s.Node] {
			if lo, hi := max(s.Start, w[0]), min(s.End, w[1]); lo < hi {
				iv = append(iv, [2]int64{lo, hi})
			}
		}
	}
	h.Lease = atLeast(iv, h.Quorum)
	h.NoLease = subtract([2]int64{h.Start, h.End}, h.Lease)
}

func contains(iv [][2]int64, t int64) bool {
	for _, w := range iv {
		if w[0] <= t && t < w[1] {
			return true
		}
	}
	return false
}

// atLeast returns the union of the times covered by at least q of the
// intervals.
func atLeast(iv [][2]int64, q int) [][2]int64 {
	type edge struct {
		t int64
		d int
	}
	var edges []edge
	for _, w := range iv {
		edges = append(edges, edge{w[0], 1}, edge{w[1], -1})
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].t != edges[j].t {
			return edges[i].t < edges[j].t
		}
		return edges[i].d < edges[j].d
	})
	out := [][2]int64{}
	n := 0
	var from int64
	for _, e := range edges {
		before := n
		n += e.d
		switch {
		case before < q && n >= q:
			from = e.t
		case before >= q && n < q:
			if len(out) > 0 && out[len(out)-1][1] == from {
				out[len(out)-1][1] = e.t
			} else if e.t > from {
				out = append(out, [2]int64{from, e.t})
			}
		}
	}
	return out
}

// subtract returns the parts of w not covered by the sorted, disjoint
// intervals cover.
func subtract(w [2]int64, cover [][2]int64) [][2]int64 {
	out := [][2]int64{}
	at := w[0]
	for _, c := range cover {
		if c[1] <= at || c[0] >= w[1] {
			continue
		}
		if c[0] > at {
			out = append(out, [2]int64{at, c[0]})
		}
		at = max(at, c[1])
	}
	if at < w[1] {
		out = append(out, [2]int64{at, w[1]})
	}
	return out
}

// shades turns pauses, partitions and crashes into intervals on the lanes
// of the party they hit.
func (b *viewBuilder) shades() {
	tr := b.tr
	vm := b.vm
	end := vm.EndNs
	add := func(party, kind string, start, stop int64, ev int, label string) {
		for _, l := range b.partyLanes(party) {
			vm.Shades = append(vm.Shades, viewShade{Lane: l, Kind: kind, Start: start, End: max(stop, start), Ev: ev, Label: label})
		}
	}
	// next finds the first event of kind on party after i (and matching).
	next := func(i int, kind, party string, match func(sim.Event) bool) (int64, bool) {
		for j := i + 1; j < len(tr.Events); j++ {
			if e := tr.Events[j]; e.Kind == kind && e.Party == party && (match == nil || match(e)) {
				return e.T, true
			}
		}
		return 0, false
	}
	for i, e := range tr.Events {
		switch e.Kind {
		case sim.EvPause:
			stop := e.T + e.DurNs
			if e.DurNs <= 0 {
				if t, ok := next(i, sim.EvResume, e.Party, nil); ok {
					stop = t
				} else {
					stop = end
				}
			}
			what := "pause"
			if e.Detail == sim.FaultGCPause || e.Detail == "" {
				what = "GC pause"
			} else {
				what = "pause (" + e.Detail + ")"
			}
			add(e.Party, "pause", e.T, stop, i, what+" "+fmtDurNs(stop-e.T))
		case sim.EvPartition:
			stop := end
			if e.DurNs > 0 {
				stop = e.T + e.DurNs
			}
			if t, ok := next(i, sim.EvHeal, e.Party, func(h sim.Event) bool { return h.Detail == "" || h.Detail == e.Detail }); ok && t < stop {
				stop = t
			}
			label := "partition " + e.Party
			if e.Detail == "delay" {
				label = "slow link " + e.Party
			}
			add(e.Party, "partition", e.T, stop, i, label+" "+fmtDurNs(stop-e.T))
		case sim.EvFault:
			// A fault with a duration (replication lag, ...) that has no
			// event kind of its own.
			if e.DurNs > 0 {
				label := e.Detail
				if label == "" {
					label = "fault"
				}
				add(e.Party, "fault", e.T, e.T+e.DurNs, i, label+" for "+fmtDurNs(e.DurNs))
			}
		case sim.EvCrash:
			stop, ok := next(i, sim.EvRestart, e.Party, nil)
			if !ok {
				stop = end
			}
			add(e.Party, "crash", e.T, stop, i, "crashed")
		case sim.EvNodeCrash:
			stop, ok := next(i, sim.EvNodeStart, e.Party, nil)
			if !ok {
				stop = end
			}
			add(e.Party, "down", e.T, stop, i, "down "+fmtDurNs(stop-e.T))
		}
	}
	// Rows: overlapping faults on a lane go to separate rows.
	order := make([]int, len(vm.Shades))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, c int) bool { return vm.Shades[order[a]].Start < vm.Shades[order[c]].Start })
	rowEnd := map[int][]int64{}
	for _, i := range order {
		sh := &vm.Shades[i]
		ends := rowEnd[sh.Lane]
		row := len(ends)
		for r, e := range ends {
			if e <= sh.Start {
				row = r
				break
			}
		}
		if row == len(ends) {
			ends = append(ends, 0)
		}
		ends[row] = sh.End
		rowEnd[sh.Lane] = ends
		sh.Row = row
	}
	for i := range vm.Lanes {
		vm.Lanes[i].FaultRows = max(len(rowEnd[i]), 1)
	}
}

// violations finds, for each violation, the holds and operations it is
// about and a window that shows them.
func (b *viewBuilder) violations(vs []checker.Violation) {
	vm := b.vm
	vm.Violations = []viewViolation{}
	for _, v := range vs {
		at := int64(math.Round(v.AtMs * 1e6))
		until := at
		if v.UntilMs > 0 {
			until = int64(math.Round(v.UntilMs * 1e6))
		}
		vv := viewViolation{Violation: v, AtNs: at, UntilNs: until, Holds: []int{}, Ops: []int{}, Lanes: []int{}}
		if vv.Clients == nil {
			vv.Clients = []string{}
		}
		if vv.Events == nil {
			vv.Events = []int{}
		}
		lo, hi := at, until
		seenHold := map[int]bool{}
		addHold := func(i int) {
			if i >= 0 && !seenHold[i] {
				seenHold[i] = true
				vv.Holds = append(vv.Holds, i)
				lo, hi = min(lo, vm.Holds[i].Start), max(hi, vm.Holds[i].End)
			}
		}
		for _, c := range v.Clients {
			if l := b.laneOf(c); l >= 0 {
				vv.Lanes = append(vv.Lanes, l)
			}
			if v.Property == checker.PropMutex || b.lockKeys[v.Key] {
				addHold(b.holdAt(c, v.Key, at, until))
				continue
			}
			if oi := b.opAt(c, v.Key, at); oi >= 0 {
				op := vm.Ops[oi]
				vv.Ops = append(vv.Ops, oi)
				lo, hi = min(lo, op.Call), max(hi, opEnd(op, vm.EndNs))
				addHold(b.holdAt(c, "", op.Call, op.Call))
			}
		}
		for _, ei := range v.Events {
			if ei >= 0 && ei < len(vm.Events) {
				e := vm.Events[ei]
				lo, hi = min(lo, e.T), max(hi, e.T+max(e.DurNs, 0))
			}
		}
		vv.Start, vv.End = max(lo, 0), min(max(hi, lo+1), vm.EndNs)
		vm.Violations = append(vm.Violations, vv)
	}
}

func opEnd(op sim.Op, end int64) int64 {
	if op.Open() {
		return end
	}
	return op.Return
}

// holdAt returns client's hold on key (any lock key if key is "") that
// overlaps [at, until], the nearest one if several do; -1 if none.
func (b *viewBuilder) holdAt(client, key string, at, until int64) int {
	best, bestD := -1, int64(math.MaxInt64)
	for i, h := range b.vm.Holds {
		if h.Client != client || (key != "" && h.Key != key) {
			continue
		}
		d := int64(0)
		switch {
		case h.End < at:
			d = at - h.End
		case h.Start > until:
			d = h.Start - until
		}
		if d == 0 && h.Start == at {
			d = -1 // the hold that starts at the violation is the one
		}
		if d < bestD {
			best, bestD = i, d
		}
	}
	if bestD > 0 && key == "" {
		return -1 // a resource operation outside any hold
	}
	return best
}

// opAt returns client's non-lock operation on key whose interval holds
// at, or the nearest one; -1 if none.
func (b *viewBuilder) opAt(client, key string, at int64) int {
	best, bestD := -1, int64(math.MaxInt64)
	for i, op := range b.vm.Ops {
		if op.Client != client || op.Key != key {
			continue
		}
		switch op.Kind {
		case model.OpAcquire, model.OpRelease, model.OpRenew:
			continue
		}
		var d int64
		switch end := opEnd(op, b.vm.EndNs); {
		case end < at:
			d = at - end
		case op.Call > at:
			d = op.Call - at
		}
		if d < bestD {
			best, bestD = i, d
		}
	}
	return best
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
