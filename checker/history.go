package checker

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// clientIDs gives each client a porcupine client id, and a fresh one
// after an operation that never returned (a lost reply, a crash), so that
// one id's operations never overlap.
type clientIDs struct {
	ids  map[string]int
	next int
}

func newClientIDs() *clientIDs { return &clientIDs{ids: map[string]int{}} }

func (c *clientIDs) id(client string) int {
	id, ok := c.ids[client]
	if !ok {
		id = c.next
		c.next++
		c.ids[client] = id
	}
	return id
}

// retire makes client's next operation use a fresh id.
func (c *clientIDs) retire(client string) { delete(c.ids, client) }

// add appends an operation, at infinity when its outcome is unknown.
func (c *clientIDs) add(out []porcupine.Operation, op trace.Op, in, res any, unknown bool) []porcupine.Operation {
	ret := op.Return
	if unknown || op.Open() {
		ret = math.MaxInt64
	}
	out = append(out, porcupine.Operation{ClientId: c.id(op.Client), Input: in, Output: res, Call: op.Call, Return: ret})
	if ret == math.MaxInt64 {
		c.retire(op.Client)
	}
	return out
}

// lockStats says how the lock history settled operations of unknown
// outcome from ground truth.
type lockStats struct {
	orphans []int // acquires that errored but made the client owner on a node: left out, they hold it for nobody
	failed  []int // acquires that errored and made it owner nowhere: left out, they changed nothing
	// reentered: a client acquired again inside the window of its own
	// release of unknown outcome (which may not have happened: an
	// interrupted isHeldByCurrentThread() skips the unlock), so the
	// history needs the reentrant model.
	reentered bool
}

// lockHistory is the client view of the locks: acquires that returned OK,
// the releases that end them, renewals that returned OK, and crashes that
// end holds. Acquires that failed, and releases by clients that hold
// nothing, cannot change the state and are left out. Every operation of
// unknown outcome is settled, so none stays open at infinity (each open
// one doubles the search): an acquire is left out, because the nodes'
// ground truth says whether it made its client owner (an orphan, which
// holds the key for nobody) or not (it changed nothing); a release takes
// effect at the latest when ground truth shows the client's key gone.
// hs is holds(t), which marked the releases that found a hold.
func lockHistory(t *truth, hs []hold) ([]porcupine.Operation, lockStats) {
	out := make([]porcupine.Operation, 0, lockOpsAtMost(t.tr.Ops, hs))
	ins := make(inputs[model.LockInput], 0, cap(out))
	var st lockStats
	ids := newClientIDs()
	pending := map[[2]string]int64{} // settled return of the client's last release of unknown outcome
	for i, op := range t.tr.Ops {
		k := [2]string{op.Client, op.Key}
		switch op.Kind {
		case model.OpAcquire:
			in := model.LockInput{Acquire: true, Key: op.Key, Owner: op.Client}
			switch {
			case op.Result == model.ResOK && !op.Open():
				st.reentered = st.reentered || op.Call < pending[k]
				out = ids.add(out, op, ins.of(in), model.LockOutput{OK: true}, false)
			case !unknownOutcome(op):
			case t.created(op.ID):
				st.orphans = append(st.orphans, op.ID)
			default:
				st.failed = append(st.failed, op.ID)
			}
		case model.OpRelease:
			if !t.heldAtRelease[i] {
				continue
			}
			settled := op
			if unknownOutcome(op) {
				settled.Return = t.releaseSettled(op)
				pending[k] = settled.Return
			}
			out = ids.add(out, settled, ins.of(model.LockInput{Key: op.Key, Owner: op.Client}),
				lockOutput(op.Result == model.ResOK, unknownOutcome(op)), false)
			if unknownOutcome(op) {
				ids.retire(op.Client)
			}
		case model.OpRenew:
			if op.Result == model.ResOK && !op.Open() {
				out = ids.add(out, op, ins.of(model.LockInput{Renew: true, Key: op.Key, Owner: op.Client}),
					model.LockOutput{OK: true}, false)
			}
		}
	}
	for _, h := range hs {
		if h.Crash >= 0 || h.Lapsed != "" {
			tc := h.End // a lapsed hold ends as a crash does: its key may go to another
			out = append(out, porcupine.Operation{ClientId: ids.id(h.Client), Call: tc, Return: tc,
				Input: ins.of(model.LockInput{Crash: true, Key: h.Key, Owner: h.Client}), Output: model.LockOutput{OK: true}})
			ids.retire(h.Client)
		}
	}
	return out, st
}

// inputs holds a history's inputs in one array: its operations point
// into it (the models read either), one allocation for them all. Its
// capacity must hold them all. Boxing each input instead costs about 4%
// of a check's instructions and 50 allocations a check of an explore
// trace (measured against BenchmarkStages/check).
type inputs[T any] []T

func (s *inputs[T]) of(in T) *T {
	*s = append(*s, in)
	return &(*s)[len(*s)-1]
}

// The outputs below are boxed from constants, which allocates nothing.

func lockOutput(ok, unknown bool) any {
	switch {
	case ok && unknown:
		return model.LockOutput{OK: true, Unknown: true}
	case ok:
		return model.LockOutput{OK: true}
	case unknown:
		return model.LockOutput{Unknown: true}
	}
	return model.LockOutput{}
}

func insertOutput(inserted bool) any {
	if inserted {
		return model.InsertOutput{Inserted: true}
	}
	return model.InsertOutput{}
}

func writeOutput(accepted bool) any {
	if accepted {
		return model.WriteOutput{Accepted: true}
	}
	return model.WriteOutput{}
}

// historyFor is an empty history with capacity for the operations of
// kinds among ops; nil when there are none.
func historyFor(ops []trace.Op, kinds ...string) []porcupine.Operation {
	n := 0
	for i := range ops {
		if slices.Contains(kinds, ops[i].Kind) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return make([]porcupine.Operation, 0, n)
}

// lockOpsAtMost bounds the lock operations lockHistory keeps: of ops,
// and a crash for each hold a crash ended.
func lockOpsAtMost(ops []trace.Op, hs []hold) int {
	n := 0
	for i := range hs {
		if hs[i].Crash >= 0 {
			n++
		}
	}
	for i := range ops {
		switch op := &ops[i]; op.Kind {
		case model.OpRelease:
			n++
		case model.OpAcquire, model.OpRenew:
			if op.Result == model.ResOK {
				n++
			}
		}
	}
	return n
}

// releaseSettled bounds a release of unknown outcome: it took effect
// between its call and the end of the client's key on the nodes (deleted
// by it, expired or lost, or revived by a promotion and then ended), or
// the end of the trace while the key lives.
func (t *truth) releaseSettled(op trace.Op) int64 {
	end := op.Call
	if n := len(t.tr.Events); n > 0 {
		end = max(end, t.tr.Events[n-1].T)
	}
	var gone int64 = -1
	for _, s := range t.sitesOf(op.Key) {
		if g := t.latest(op.Client, op.Key, s, op.Call); g != nil {
			gone = max(gone, min(g.EndT, end))
		}
		// A key a promoted replica revived (no operation created it) is
		// still this client's until it ends: the release may land on it.
		for _, gi := range t.byOwner.get(op.Client) {
			if g := t.grants[gi]; g.T > op.Call && g.Op < 0 && g.Key == op.Key && g.Site == s {
				gone = max(gone, min(g.EndT, end))
			}
		}
	}
	if gone < op.Call {
		return op.Call
	}
	return gone
}

// settle reads the outcome of a resource operation the client never
// learned from ground truth: its last write that reached the resource in
// its window, and whether the resource took it; or, for an operation that
// gave up, its first write that landed later (a delayed message) outside
// the client's other operations on the key. The write's time becomes the
// operation's return. reached is false when no write arrived: the
// operation changed nothing. own, when set, keeps the writes that can be
// op's (a fenced write's token): a retry of an earlier operation's request
// can land inside op's window.
func (t *truth) settle(op trace.Op, own func(trace.Event) bool) (at int64, reached, took bool) {
	w := -1
	for _, i := range t.clientEvents(op.Client, op.Call, ret(op)) {
		// A write the node refused with an error (READONLY on a demoted
		// master) did not run: a retry that failed so leaves the first.
		if t.resourceWrite(i, op.Key) && !writeErrored(t.tr.Events[i].Reply) && (own == nil || own(t.tr.Events[i])) {
			w = i
		}
	}
	if w < 0 && !op.Open() {
		w = t.lateWrite(op, own)
	}
	if w < 0 {
		return 0, false, false
	}
	e := t.tr.Events[w]
	return e.T, true, writeAccepted(e.Reply)
}

// resourceWrite reports whether event i is a write to key.
func (t *truth) resourceWrite(i int, key string) bool {
	e := &t.tr.Events[i]
	return (e.Kind == trace.EvService || e.Kind == trace.EvCommand) && e.Key == key && len(e.Args) > 0 && !isRead(e.Args[0])
}

// lateWrite is op's client's first write to op's key that landed after
// op gave up and inside none of the client's later operations on the key,
// or -1; own as in settle.
func (t *truth) lateWrite(op trace.Op, own func(trace.Event) bool) int {
	from := op.Return + 1
	if op.Open() {
		from = op.Call
	}
	for _, i := range t.clientEvents(op.Client, from, maxTime) {
		if !t.resourceWrite(i, op.Key) || writeErrored(t.tr.Events[i].Reply) || own != nil && !own(t.tr.Events[i]) {
			continue
		}
		at := t.tr.Events[i].T
		// A later operation of the client's on the key owns the write;
		// one nested in op (the register's view of its INSERT) does not.
		for _, j := range t.opsBy.get(op.Client) {
			o := t.tr.Ops[j]
			if o.Key == op.Key && o.Call > ret(op) && o.Call <= at && at <= ret(o) {
				return -1
			}
		}
		return i
	}
	return -1
}

// insertHistory is the unique set's history. An insert whose outcome the
// client never learned is settled from the database's ground truth.
func insertHistory(t *truth) []porcupine.Operation {
	out := historyFor(t.tr.Ops, model.OpInsert)
	ins := make(inputs[model.InsertInput], 0, cap(out))
	ids := newClientIDs()
	for _, op := range t.tr.Ops {
		if op.Kind != model.OpInsert {
			continue
		}
		in := model.InsertInput{Name: op.Key}
		if !unknownOutcome(op) {
			out = ids.add(out, op, ins.of(in), insertOutput(op.Result == model.ResInserted), false)
			continue
		}
		at, reached, took := t.settle(op, nil)
		if !reached || !took {
			continue // nothing written: an insert that did not happen cannot change the set
		}
		settled := op
		settled.Return = max(at, op.Call)
		out = ids.add(out, settled, ins.of(in), insertOutput(true), false)
		if op.Open() || settled.Return > op.Return {
			ids.retire(op.Client)
		}
	}
	return out
}

// parseBuy reads "sold@N" / "soldout@N".
func parseBuy(result string) (sold bool, read int, ok bool) {
	kind, n, found := strings.Cut(result, "@")
	if !found {
		return false, 0, false
	}
	v, err := strconv.Atoi(n)
	if err != nil {
		return false, 0, false
	}
	return kind == "sold", v, kind == "sold" || kind == "soldout"
}

func buyHistory(tr *trace.Trace, initial int) []porcupine.Operation {
	out := historyFor(tr.Ops, model.OpBuy)
	ids := newClientIDs()
	for _, op := range tr.Ops {
		if op.Kind != model.OpBuy {
			continue
		}
		sold, read, ok := parseBuy(op.Result)
		u := !ok || unknownOutcome(op)
		out = ids.add(out, op, model.BuyInput{Key: op.Key, Initial: initial},
			model.BuyOutput{Read: read, Sold: sold, Unknown: u}, u)
	}
	return out
}

// writeHistory is the fenced storage's history; writes without a numeric
// token or with a result that is neither ok, rejected nor unknown are
// left out. A write whose outcome the client never learned is settled
// from the storage's reply when it reached the storage, and left out
// when it did not.
func writeHistory(t *truth) []porcupine.Operation {
	out := historyFor(t.tr.Ops, model.OpWrite)
	ins := make(inputs[model.WriteInput], 0, cap(out))
	ids := newClientIDs()
	for _, op := range t.tr.Ops {
		if op.Kind != model.OpWrite {
			continue
		}
		tok, err := strconv.ParseInt(op.Value, 10, 64)
		if err != nil {
			continue
		}
		in := model.WriteInput{Key: op.Key, Token: tok}
		if !unknownOutcome(op) {
			if op.Result == model.ResOK || op.Result == model.ResRejected {
				out = ids.add(out, op, ins.of(in), writeOutput(op.Result == model.ResOK), false)
			}
			continue
		}
		at, reached, took := t.settle(op, func(e trace.Event) bool { return model.WriteToken(e.Args) == op.Value })
		if !reached {
			continue
		}
		settled := op
		settled.Return = max(at, op.Call)
		out = ids.add(out, settled, ins.of(in), writeOutput(took), false)
		if op.Open() || settled.Return > op.Return {
			ids.retire(op.Client)
		}
	}
	return out
}

// setHistory is the lock-set's history: acknowledged and unknown adds,
// and reads that returned.
func setHistory(tr *trace.Trace) []porcupine.Operation {
	out := historyFor(tr.Ops, model.OpAdd, model.OpRead)
	ids := newClientIDs()
	for _, op := range tr.Ops {
		switch {
		case op.Kind == model.OpAdd && unknownOutcome(op):
			out = ids.add(out, op, model.SetInput{Key: op.Key, Add: true, Elem: op.Value}, model.SetOutput{Unknown: true}, true)
		case op.Kind == model.OpAdd && op.Result == model.ResOK:
			out = ids.add(out, op, model.SetInput{Key: op.Key, Add: true, Elem: op.Value}, model.SetOutput{OK: true}, false)
		case op.Kind == model.OpRead && !unknownOutcome(op):
			out = ids.add(out, op, model.SetInput{Key: op.Key}, model.SetOutput{Read: op.Result}, false)
		}
	}
	return out
}

func ret(op trace.Op) int64 {
	if op.Open() {
		return maxTime
	}
	return op.Return
}
