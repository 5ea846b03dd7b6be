package checker

import (
	"iter"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// How a grant ended.
const (
	endExpired = "expired"     // expired on time
	endDeleted = "deleted"     // a command deleted it
	endLost    = "lost"        // failover, demotion, restart (Change=lost)
	endJump    = "clock-jump"  // expired early: the node's clock jumped
	endDrift   = "clock-drift" // expired early: the node's clock ran fast
	endTaken   = "overwritten" // another client's command overwrote its value
)

// replicatedSite names the one site of a replicated deployment: its
// master moves between nodes, so the lock lives in the deployment.
const replicatedSite = "deployment"

// grant is one lock key as the Redis deployment held it: created by a
// client command at one site, until it was deleted, expired or lost.
type grant struct {
	Key      string
	Site     string
	Node     string // the node that holds it now (moves with a promotion)
	Owner    string // the client whose command created it
	Create   int    // event that created it
	T        int64
	End      int   // event that ended it, -1 while live
	EndT     int64 // maxTime while live
	EndKind  string
	EndBy    string // the deleting client
	Jump     int    // the clock jump behind an early expiry, -1
	Drift    []int  // the fast clock drifts behind an early expiry
	Deadline int64  // when its lease runs out on time (true time), 0 unknown
	TTLBy    int    // the last command that set its TTL
	Renewals []int  // TTL renewals by its owner's process
	Op       int    // the owner's operation whose window holds the creation, -1
	idx      int    // its place in truth.grants
}

// foreignRenewal is an EXPIRE-family command that extended a key another
// client's process created.
type foreignRenewal struct {
	Event int
	G     *grant
}

// truth indexes the trace's ground truth: what every node did with every
// lock key, and the events of each client, process and key.
type truth struct {
	tr            *trace.Trace
	lease         time.Duration
	replicated    bool
	allSites      bool // a hold needs every site (MultiLock), not a majority
	history       bool // a recorded history's trace (Options.History)
	p             trace.Precision
	lockKeys      groups[string]         // the lock operations by key: the lock keys, in first-seen order
	grants        []*grant               // in creation order
	createdBy     map[int]bool           // the ops that created a grant: created() makes it
	byKeyProcess  map[[2]string][]*grant // the grants by key and owner's process, in creation order: retaken makes it
	visits        int                    // grants retaken looked at
	heldAtRelease []bool                 // by op: a release that found its client holding the key (holds makes it)
	byOwner       groups[string]         // the grants by owner
	sites         [][]string             // by lock key (its place in lockKeys): the sites it was granted on, sorted
	foreign       []foreignRenewal
	opsBy         groups[string] // client -> op indexes, in invocation order
	byClient      groups[string] // events naming a client
	byParty       groups[string] // events by party (processes, nodes): parties() makes it
	crashAt       map[string]int // process -> its crash event
	lastJump      map[string]int
	drifts        map[string][]int   // node or process -> its clock drift events
	live          [][]*grant         // by lock key (its place in lockKeys): its live grants, at every site (and ended ones: end)
	held          map[int]siteGrants // holdGrants by the hold's acquire's id
	lostKeys      map[string][]int   // any key -> events that lost it (Change=lost)
	promotes      []int              // promotions (EvPromote without a key)
	retried       bool               // a client retried a command (EvRetry)
	anyLate       bool               // a request ran after its client gave up (EvLate)
	partitions    []int              // partitions and delays of links
	units         scriptUnits
}

type siteKey struct{ site, key string }

// liveKey is a lock key at a site, the key by its place in lockKeys.
type liveKey struct {
	site string
	key  int
}

func newTruth(tr *trace.Trace, opt Options) *truth {
	t := &truth{
		tr: tr, lease: time.Duration(opt.LeaseMs) * time.Millisecond, allSites: opt.AllSites, history: opt.History, p: opt.Precision,
		grants: make([]*grant, 0, 16), units: newScriptUnits(tr.Scripts),
	}
	t.opsBy = groupBy(len(tr.Ops), func(i int) (string, bool) { return tr.Ops[i].Client, true })
	t.byClient = groupBy(len(tr.Events), func(i int) (string, bool) { return tr.Events[i].Client, tr.Events[i].Client != "" })
	t.lockKeys = groupBy(len(tr.Ops), func(i int) (string, bool) {
		switch op := &tr.Ops[i]; op.Kind {
		case model.OpAcquire, model.OpRelease, model.OpRenew:
			return op.Key, true
		}
		return "", false
	})
	t.live = make([][]*grant, len(t.lockKeys.Keys))
	for i := range tr.Events {
		switch tr.Events[i].Kind {
		case trace.EvReplicate, trace.EvPromote, trace.EvDemote, trace.EvMasterDown:
			t.replicated = true
		}
	}
	for i := range tr.Events {
		e := &tr.Events[i]
		switch e.Kind {
		case trace.EvCrash:
			if _, ok := t.crashAt[e.Party]; !ok {
				t.crashAt = setIndex(t.crashAt, e.Party, i)
			}
		case trace.EvClockJump:
			t.lastJump = setIndex(t.lastJump, e.Party, i)
		case trace.EvFault:
			if _, ok := e.DriftPPM(); ok {
				if t.drifts == nil {
					t.drifts = map[string][]int{}
				}
				t.drifts[e.Party] = append(t.drifts[e.Party], i)
			}
		case trace.EvPartition:
			t.partitions = append(t.partitions, i)
		case trace.EvRetry:
			t.retried = true
		case trace.EvLate:
			t.anyLate = true
		case trace.EvPromote:
			if e.Key == "" {
				t.promotes = append(t.promotes, i)
			}
		}
		if e.Change == trace.KeyLost {
			if t.lostKeys == nil {
				t.lostKeys = map[string][]int{}
			}
			t.lostKeys[e.Key] = append(t.lostKeys[e.Key], i)
		}
		t.apply(i, e)
	}
	t.byOwner = groupBy(len(t.grants), func(i int) (string, bool) { return t.grants[i].Owner, true })
	t.sites = make([][]string, len(t.lockKeys.Keys))
	for _, g := range t.grants {
		k, _ := t.lockKeys.find(g.Key)
		if !slices.Contains(t.sites[k], g.Site) {
			t.sites[k] = append(t.sites[k], g.Site)
		}
	}
	for _, ss := range t.sites {
		slices.Sort(ss)
	}
	return t
}

// sitesOf is the sites key was granted on, sorted.
func (t *truth) sitesOf(key string) []string {
	if k, ok := t.lockKeys.find(key); ok {
		return t.sites[k]
	}
	return nil
}

// liveOn yields the live grants of a lock key at a site.
func (t *truth) liveOn(sk liveKey) iter.Seq[*grant] {
	return func(yield func(*grant) bool) {
		for _, g := range t.live[sk.key] {
			if !g.ended() && g.Site == sk.site && !yield(g) {
				return
			}
		}
	}
}

// setIndex sets m[k], making m on its first entry (most runs have none).
func setIndex(m map[string]int, k string, i int) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[k] = i
	return m
}

// isLockKey reports one of the lock keys.
func (t *truth) isLockKey(key string) bool { return t.lockKeys.has(key) }

func (t *truth) site(node string) string {
	if t.replicated {
		return replicatedSite
	}
	return node
}

// apply updates the grants with event i; it returns a grant it created.
func (t *truth) apply(i int, e *trace.Event) *grant {
	if e.Kind == trace.EvPromote && e.Key == "" {
		// The keys of the replaced master now live on the promoted node;
		// keys on another node (an old master still up: split brain) stay.
		old := e.Replaced()
		for _, gs := range t.live { // every lock key's, at every site
			for _, g := range gs {
				if !g.ended() && (g.Node == old || old == "") {
					g.Node = e.Party
				}
			}
		}
		return nil
	}
	if e.Change == "" && e.Kind != trace.EvExpire && e.Kind != trace.EvCommand {
		return nil // touches no grant
	}
	key, ok := t.lockKeys.find(e.Key)
	if !ok {
		return nil
	}
	sk := liveKey{t.site(e.Party), key}
	switch {
	case e.Change == trace.KeyLost:
		for g := range t.liveOn(sk) {
			// A promoted replica lacked what the old master held; any
			// other loss (demotion, restart, resync) is of the node's own.
			if e.Kind == trace.EvPromote || g.Node == e.Party {
				t.end(g, i, endLost)
			}
		}
	case e.Change == trace.KeyRevived:
		return t.revive(i, e, sk)
	case e.Kind == trace.EvExpire:
		for g := range t.liveOn(sk) {
			// An expiry naming a client (a recorded history's inference
			// where the service granted the key twice) ends that
			// client's grant only.
			if g.Node != e.Party || e.Client != "" && model.ProcessOf(e.Client) != model.ProcessOf(g.Owner) {
				continue
			}
			// The node expires what was due before it records a jump, so
			// an expiry after the jump at the same instant is its doing; so
			// is a later one before the lease ran out, of a key made before
			// the jump.
			kind := endExpired
			if j, ok := t.lastJump[e.Party]; ok && t.jumpShortened(t.tr.Events[j], g, e.T) {
				kind = endJump
				g.Jump = j
				if g.Deadline <= e.T {
					g.Deadline = e.T + t.tr.Events[j].DurNs
				}
			} else if ds := t.driftShortened(g, e.Party, e.T); ds != nil {
				kind = endDrift
				g.Drift = ds
			}
			t.end(g, i, kind)
		}
	case e.Kind == trace.EvCommand && e.Client != "":
		return t.applyCommand(i, e, sk)
	}
	return nil
}

// jumpShortened reports whether forward clock jump j ended grant g's
// key at expiry time at: at the jump, or later but before the lease ran
// out for a key created before the jump.
func (t *truth) jumpShortened(j trace.Event, g *grant, at int64) bool {
	if j.DurNs <= 0 {
		return false
	}
	return j.T == at || j.T > g.T && at < g.Deadline
}

// driftShortened returns the drift events that made node's clock run
// fast while it counted down grant g's TTL (from the command that last
// set it) when the key expired there at time at, before its lease ran
// out in true time: nil if it expired on time, or no fast clock is on
// record. Without drift a node expires a key at its deadline or later.
func (t *truth) driftShortened(g *grant, node string, at int64) []int {
	ds := t.drifts[node]
	if len(ds) == 0 || g.Deadline <= 0 || at >= g.Deadline {
		return nil
	}
	from := t.tr.Events[g.TTLBy].T
	var out []int
	for k, d := range ds {
		e := &t.tr.Events[d]
		if e.T > at {
			break
		}
		if k+1 < len(ds) && t.tr.Events[ds[k+1]].T <= from {
			continue // replaced before the TTL was set
		}
		if ppm, _ := e.DriftPPM(); ppm > 0 {
			out = append(out, d)
		}
	}
	return out
}

// applyCommand updates the grants with a client's command: a key it
// created or overwrote (a takeover when another process owned it) is
// granted to it; one it deleted ends; a TTL it set renews the grant.
func (t *truth) applyCommand(i int, e *trace.Event, sk liveKey) *grant {
	switch e.Change {
	case trace.KeyCreated:
		return t.grant(i, e, sk)
	case trace.KeyDeleted:
		// One node holds one grant of a key, but for a double grant of a
		// recorded history: there a deletion by one owner ends its own.
		own := false
		for g := range t.liveOn(sk) {
			own = own || g.Node == e.Party && model.ProcessOf(e.Client) == model.ProcessOf(g.Owner)
		}
		for g := range t.liveOn(sk) {
			if g.Node == e.Party && (!own || model.ProcessOf(e.Client) == model.ProcessOf(g.Owner)) {
				g.EndBy = e.Client
				t.end(g, i, endDeleted)
			}
		}
		return nil
	case trace.KeyOverwritten:
		held := false
		for g := range t.liveOn(sk) {
			if g.Node != e.Party {
				continue
			}
			if model.ProcessOf(e.Client) == model.ProcessOf(g.Owner) {
				held = true
				continue
			}
			g.EndBy = e.Client
			t.end(g, i, endTaken)
		}
		if !held {
			return t.grant(i, e, sk)
		}
	}
	if t.history && len(e.Args) > 0 && e.Args[0] == "renew" {
		t.historyRenew(i, e, sk)
		return nil
	}
	for g := range t.liveOn(sk) {
		if g.Node != e.Party {
			continue
		}
		own := model.ProcessOf(e.Client) == model.ProcessOf(g.Owner)
		if own || !isScript(e) { // a rival's script is not trusted with a TTL
			t.renew(i, e, g, own)
		}
		if !own && isExpireCommand(e) {
			t.foreign = append(t.foreign, foreignRenewal{Event: i, G: g})
		}
	}
	return nil
}

// historyRenew applies a recorded history's inferred renew (event i):
// it extended its caller's own key, or, when its process held none,
// another process's key (the first live one, as the history's reader
// infers): a foreign renewal.
func (t *truth) historyRenew(i int, e *trace.Event, sk liveKey) {
	var target *grant
	own := false
	for g := range t.liveOn(sk) {
		if g.Node != e.Party {
			continue
		}
		if model.ProcessOf(e.Client) == model.ProcessOf(g.Owner) {
			target, own = g, true
			break
		}
		if target == nil {
			target = g
		}
	}
	if target == nil {
		return
	}
	target.TTLBy = i
	if ms := historyLeaseMs(e); ms > 0 {
		target.Deadline = e.T + ms*1e6
	}
	if own {
		target.Renewals = append(target.Renewals, i)
		return
	}
	t.foreign = append(t.foreign, foreignRenewal{Event: i, G: target})
}

// historyLeaseMs is the lease a recorded history's inferred acquire or
// renew (event e) names, in ms; 0 if none.
func historyLeaseMs(e *trace.Event) int64 {
	for _, a := range e.Args {
		if ms, ok := strings.CutPrefix(a, "lease_ms="); ok {
			if d, ok := num(ms, time.Millisecond); ok {
				return d.Milliseconds()
			}
		}
	}
	return 0
}

// renew sets g's deadline from the TTL command event i set, if any.
func (t *truth) renew(i int, e *trace.Event, g *grant, own bool) {
	ttl, ok := commandTTL(e, &t.units)
	if !ok {
		return
	}
	g.Deadline = e.T + int64(ttl)
	g.TTLBy = i
	if own {
		g.Renewals = append(g.Renewals, i)
	}
}

// grant records that event i made its client owner of a key.
func (t *truth) grant(i int, e *trace.Event, sk liveKey) *grant {
	g := grant{Key: e.Key, Site: sk.site, Node: e.Party, Owner: e.Client, Create: i, T: e.T,
		End: -1, EndT: maxTime, Jump: -1, TTLBy: i, Op: t.opAt(e.Client, e.Key, e.T)}
	switch ttl, ok := commandTTL(e, &t.units); {
	case ok:
		g.Deadline = e.T + int64(ttl)
	case t.history:
		// A recorded history's acquire names its own lease, or none.
		if ms := historyLeaseMs(e); ms > 0 {
			g.Deadline = e.T + ms*1e6
		}
	case t.lease > 0:
		g.Deadline = e.T + int64(t.lease)
	}
	return t.add(sk, g)
}

// created reports whether op created a grant. Only acquires of unknown
// outcome ask: most runs never index them.
func (t *truth) created(op int) bool {
	if t.createdBy == nil {
		t.createdBy = make(map[int]bool, len(t.grants))
		for _, g := range t.grants {
			if g.Op >= 0 {
				t.createdBy[g.Op] = true
			}
		}
	}
	return t.createdBy[op]
}

// add records a new live grant.
func (t *truth) add(sk liveKey, g grant) *grant {
	g.idx = len(t.grants)
	p := &g
	t.live[sk.key] = append(slices.DeleteFunc(t.live[sk.key], (*grant).ended), p)
	t.grants = append(t.grants, p)
	return p
}

// latest is owner's last grant on key at site made at or before at, nil
// if none.
func (t *truth) latest(owner, key, site string, at int64) *grant {
	gs := t.byOwner.get(owner)
	n := sort.Search(len(gs), func(i int) bool { return t.grants[gs[i]].T > at })
	for j := n - 1; j >= 0; j-- {
		if g := t.grants[gs[j]]; g.Key == key && g.Site == site {
			return g
		}
	}
	return nil
}

// revive gives a key a promoted replica brought back (its deletion on the
// old master, or a rival's newer key there, had not replicated) to the
// owner of the grant that wrote its value: a key held for nobody who
// believes in it until its owner counts on it again, or it ends. The
// value's first word names its writer (a string's token, a hash's first
// field); the words after it (a hash's hold count, "1") name nobody.
func (t *truth) revive(i int, e *trace.Event, sk liveKey) *grant {
	var last, wrote *grant
	for _, g := range t.grants {
		if g.Key == e.Key && g.Site == sk.site && g.End >= 0 {
			last = g
			if len(e.Args) > 0 && slices.Contains(t.tr.Events[g.Create].Args, e.Args[0]) {
				wrote = g
			}
		}
	}
	if wrote != nil {
		last = wrote
	}
	if last == nil {
		return nil
	}
	return t.add(sk, grant{Key: e.Key, Site: sk.site, Node: e.Party, Owner: last.Owner, Create: i, T: e.T,
		End: -1, EndT: maxTime, Jump: -1, TTLBy: i, Op: -1, Deadline: last.Deadline})
}

// end ends g with event i. It stays in its key's live list, skipped,
// until the next grant on the key (callers range over the list).
func (t *truth) end(g *grant, i int, kind string) {
	g.End, g.EndT, g.EndKind = i, t.tr.Events[i].T, kind
}

func (g *grant) ended() bool { return g.End >= 0 }

// opAt finds client's operation on key whose window holds time at.
func (t *truth) opAt(client, key string, at int64) int {
	ids := t.opsBy.get(client)
	n := sort.Search(len(ids), func(i int) bool { return t.tr.Ops[ids[i]].Call > at })
	for i := n - 1; i >= 0 && i >= n-8; i-- {
		op := t.tr.Ops[ids[i]]
		if op.Key == key && (op.Open() || op.Return >= at) {
			return op.ID
		}
	}
	return -1
}

// clientEvents returns the events naming client in [from, to].
func (t *truth) clientEvents(client string, from, to int64) []int {
	return window(t.tr, t.byClient.get(client), from, to)
}

// parties indexes the events by party on first use: explanations read
// it, most runs need none.
func (t *truth) parties() *groups[string] {
	if t.byParty.place == nil {
		t.byParty = groupBy(len(t.tr.Events), func(i int) (string, bool) { return t.tr.Events[i].Party, true })
	}
	return &t.byParty
}

// partyEvents returns the events by party in [from, to].
func (t *truth) partyEvents(party string, from, to int64) []int {
	return window(t.tr, t.parties().get(party), from, to)
}

func window(tr *trace.Trace, idx []int, from, to int64) []int {
	lo := sort.Search(len(idx), func(i int) bool { return tr.Events[idx[i]].T >= from })
	hi := sort.Search(len(idx), func(i int) bool { return tr.Events[idx[i]].T > to })
	if lo >= hi {
		return nil
	}
	return idx[lo:hi]
}

// holdGrants lists, by site, the grants a hold counted on: those its
// acquire created; failing that, the holder's grants still live when the
// acquire began (a reentry, or an earlier acquire whose reply was lost).
func (t *truth) holdGrants(h hold) siteGrants {
	id := h.Acquire.ID
	if id < 0 || id >= len(t.tr.Ops) {
		return t.countedOn(h) // not an index: not kept
	}
	if gs, ok := t.held[id]; ok {
		return gs
	}
	if t.held == nil {
		t.held = map[int]siteGrants{}
	}
	gs := t.countedOn(h)
	t.held[id] = gs
	return gs
}

func (t *truth) countedOn(h hold) siteGrants {
	if gs := t.countedOnOwner(h, h.Client); len(gs) > 0 {
		return gs
	}
	// A lock whose token names the process (Spring's clientId) lets a
	// thread count on a key another thread of its process wrote: the
	// latest such grant's owner is the one it shares.
	var best siteGrants
	var at int64 = -1
	for _, owner := range t.owners() {
		if owner == h.Client || model.ProcessOf(owner) != h.Process {
			continue
		}
		gs := t.countedOnOwner(h, owner)
		for _, sg := range gs {
			if sg.g.T > at {
				best, at = gs, sg.g.T
			}
		}
	}
	return best
}

// servedByDeposed reports a grant a promotion lost (the new master never
// had it) that the node it was made on, deposed, still held and renewed
// for h: the holder's acquire ran there, on the copy only that node kept.
func (t *truth) servedByDeposed(h hold, g *grant) bool {
	if g.EndKind != endLost || t.tr.Events[g.End].Kind != trace.EvPromote {
		return false
	}
	made := t.tr.Events[g.Create].Party
	for _, i := range t.clientEvents(h.Client, h.Acquire.Call, h.Start) {
		if e := t.tr.Events[i]; e.Kind == trace.EvCommand && e.Key == h.Key && e.Party == made {
			return true
		}
	}
	return false
}

// owners lists the clients that own a grant, in the order of their first.
func (t *truth) owners() []string {
	var out []string
	for _, g := range t.grants {
		if !slices.Contains(out, g.Owner) {
			out = append(out, g.Owner)
		}
	}
	return out
}

// countedOnOwner is the grants of owner's on h's key that h counted on:
// those made during its acquire, else those live when it began.
func (t *truth) countedOnOwner(h hold, owner string) siteGrants {
	var made, adopted siteGrants
	for _, s := range t.sitesOf(h.Key) {
		g := t.latest(owner, h.Key, s, h.Start)
		if g == nil {
			continue
		}
		switch {
		case g.T >= h.Acquire.Call:
			made = append(made, siteGrant{s, g})
		case g.EndT >= h.Acquire.Call, t.servedByDeposed(h, g):
			adopted = append(adopted, siteGrant{s, g})
		}
	}
	if len(made) > 0 {
		return made
	}
	return adopted
}

// siteGrants is a hold's grants, one a site, in the order of the key's
// sites (sorted): a run's lock has one site, or a few.
type siteGrants []siteGrant

type siteGrant struct {
	site string
	g    *grant
}

// get is the grant at site, nil if none.
func (gs siteGrants) get(site string) *grant {
	for _, sg := range gs {
		if sg.site == site {
			return sg.g
		}
	}
	return nil
}

// liveAt counts the sites where client's latest grant on key was live at.
func (t *truth) liveAt(client, key string, at int64) int {
	n := 0
	for _, s := range t.sitesOf(key) {
		if g := t.latest(client, key, s, at); g != nil && g.EndT > at {
			n++
		}
	}
	return n
}

// quorum is how many sites a holder of key must keep live for no rival
// to hold it too: a majority of the sites the key was ever granted on
// (Redlock), or one when a holder needs every site (MultiLock).
func (t *truth) quorum(key string) int {
	if t.allSites {
		return 1
	}
	return len(t.sitesOf(key))/2 + 1
}

// retryOf returns the retry event behind command event i when its client
// had sent the same command before and that first run reached the node
// too: the command ran twice. -1 otherwise.
func (t *truth) retryOf(i int) int {
	if !t.retried {
		return -1
	}
	e := t.tr.Events[i]
	idx := t.byClient.get(e.Client)
	k := sort.SearchInts(idx, i)
	retry := -1
	for j := k - 1; j >= 0; j-- {
		p := t.tr.Events[idx[j]]
		switch p.Kind {
		case trace.EvRetry:
			if retry < 0 {
				retry = idx[j]
			}
		case trace.EvCommand, trace.EvService:
			same := retry >= 0 && p.Party == e.Party && strings.Join(p.Args, "\x00") == strings.Join(e.Args, "\x00") &&
				t.opAt(e.Client, e.Key, p.T) == t.opAt(e.Client, e.Key, e.T)
			if same {
				return retry
			}
			return -1
		}
	}
	return -1
}

// unknownOutcome reports an operation the client never learned the
// outcome of.
func unknownOutcome(op trace.Op) bool {
	return op.Open() || strings.HasPrefix(op.Result, model.ResError)
}

// late reports whether event i ran a request its client had given up on:
// the sim records that (EvLate) right after the request's own event.
func (t *truth) late(i int) bool {
	if !t.anyLate {
		return false
	}
	e := t.tr.Events[i]
	for _, j := range t.clientEvents(e.Client, e.T, e.T) {
		if l := t.tr.Events[j]; j > i && l.Kind == trace.EvLate && l.Party == e.Party {
			return true
		}
	}
	return false
}
