package checker

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// causeFor finds the mutual-exclusion violation between the two clients
// closest before t, or else the latest one involving either, and lends its
// cause to a resource violation.
func causeFor(mv []Violation, a, b string, t int64) (string, string) {
	best := -1
	for i, v := range mv {
		if len(v.Clients) == 2 && ((v.Clients[0] == a && v.Clients[1] == b) || (v.Clients[0] == b && v.Clients[1] == a)) &&
			v.AtMs <= trace.Ms(t) {
			best = i
		}
	}
	if best < 0 {
		for i, v := range mv {
			if v.AtMs <= trace.Ms(t) && (slices.Contains(v.Clients, a) || slices.Contains(v.Clients, b)) {
				best = i
			}
		}
	}
	if best < 0 {
		return CauseUnexplained, ""
	}
	return mv[best].Cause, mv[best].Reason
}

// partnerOf finds the latest mutual-exclusion violation involving client
// before t: the other client, the cause and reason.
func partnerOf(mv []Violation, client string, t int64) (string, string, string, bool) {
	for i := len(mv) - 1; i >= 0; i-- {
		v := mv[i]
		if len(v.Clients) != 2 || v.AtMs > trace.Ms(t) {
			continue
		}
		switch client {
		case v.Clients[0]:
			return v.Clients[1], v.Cause, v.Reason, true
		case v.Clients[1]:
			return v.Clients[0], v.Cause, v.Reason, true
		}
	}
	return "", CauseUnexplained, "", false
}

func duplicateInserts(t *truth, mv []Violation) []Violation {
	// An insert its client never learned the outcome of counts where the
	// database took it during the call; a write that came after the
	// client gave up is lateInserts' to explain.
	names, byName := landedInserts(t, func(op trace.Op) (int64, int, bool) {
		w := t.landedWrite(op)
		if w < 0 {
			return 0, -1, false
		}
		return t.tr.Events[w].T, -1, true
	})
	var out []Violation
	for _, name := range names {
		ls := byName[name]
		for _, second := range ls[1:] {
			first := ls[0]
			if second.at < first.at && (first.op.Result != model.ResInserted || second.op.Result != model.ResInserted) {
				first, second = second, first // an unacknowledged insert landed last
			}
			cause, reason := causeFor(mv, first.op.Client, second.op.Client, second.at)
			out = append(out, Violation{
				Property: PropDamage, Cause: cause, Reason: reason, Key: name,
				Clients: []string{first.op.Client, second.op.Client}, AtMs: trace.Ms(second.at),
				Explanation: "both " + first.op.Client + " (at " + t.p.At(first.at) + ") and " + second.op.Client +
					" (at " + t.p.At(second.at) + ") found " + name + " absent under the lock and inserted it: a duplicate row.",
			})
		}
	}
	return out
}

// landedWrite is the accepted write of op's key by op's client that the
// database took during op and the sim did not mark late, or -1.
func (t *truth) landedWrite(op trace.Op) int {
	for _, i := range t.clientEvents(op.Client, op.Call, ret(op)) {
		if t.resourceWrite(i, op.Key) && writeAccepted(t.tr.Events[i].Reply) && !t.late(i) {
			return i
		}
	}
	return -1
}

// landedInsert is an insert and when the database took it; late is the
// write's event when it landed after its client gave up, or -1.
type landedInsert struct {
	op   trace.Op
	at   int64
	late int
}

// landedInserts groups by name, in the order of the ops, the inserts the
// database took: those acknowledged as inserted, at their return, and
// those of unknown outcome that settle places (at, late, ok).
func landedInserts(t *truth, settle func(op trace.Op) (at int64, late int, ok bool)) ([]string, map[string][]landedInsert) {
	byName := map[string][]landedInsert{}
	var names []string
	for _, op := range t.tr.Ops {
		l := landedInsert{op: op, at: op.Return, late: -1}
		switch {
		case op.Kind != model.OpInsert:
			continue
		case unknownOutcome(op):
			at, late, ok := settle(op)
			if !ok {
				continue
			}
			l.at, l.late = at, late
		case op.Result != model.ResInserted:
			continue
		}
		if len(byName[op.Key]) == 0 {
			names = append(names, op.Key)
		}
		byName[op.Key] = append(byName[op.Key], l)
	}
	return names, byName
}

// lateInserts reports inserts whose client gave up on them (timed out)
// and that landed later, when another insert of the name landed too (one
// the client learned of, or another late one).
func lateInserts(t *truth) []Violation {
	// Timed out, or still in flight when its process crashed (open): then
	// only a write the sim marked late counts.
	names, byName := landedInserts(t, func(op trace.Op) (int64, int, bool) {
		w := t.lateWrite(op, nil)
		if w < 0 || !writeAccepted(t.tr.Events[w].Reply) || op.Open() && !t.late(w) {
			return 0, -1, false
		}
		return t.tr.Events[w].T, w, true
	})
	var out []Violation
	for _, name := range names {
		ls := byName[name]
		sort.SliceStable(ls, func(i, j int) bool { return ls[i].at < ls[j].at })
		for _, l := range ls[1:] {
			first := ls[0]
			if first.late < 0 && l.late < 0 {
				continue // both acknowledged: duplicateInserts explains it
			}
			late, other := l, first
			if l.late < 0 {
				late, other = first, l
			}
			gaveUp := fmt.Sprintf("timed out at %s and %s went on", t.p.At(late.op.Return), late.op.Client)
			if late.op.Open() {
				gaveUp = "was in flight when " + late.op.Process + " crashed"
			}
			out = append(out, Violation{
				Property: PropDamage, Cause: CauseDelayedWrite, Key: name,
				Clients: []string{first.op.Client, l.op.Client}, AtMs: trace.Ms(l.at), Events: []int{late.late},
				Explanation: fmt.Sprintf("%s's INSERT of %s %s; the request, delayed in the network, landed at %s; %s inserted it too (at %s): a duplicate row.",
					late.op.Client, name, gaveUp, t.p.At(late.at), other.op.Client, t.p.At(other.at)),
			})
		}
	}
	return out
}

// retriedWrites reports service requests a client sent twice because it
// retried after a timeout, when both runs wrote (a duplicate row).
func retriedWrites(t *truth) []Violation {
	if !t.retried {
		return nil
	}
	var out []Violation
	for i := range t.tr.Events {
		e := &t.tr.Events[i]
		if e.Kind != trace.EvService || len(e.Args) == 0 || isRead(e.Args[0]) || !writeAccepted(e.Reply) {
			continue
		}
		r := t.retryOf(i)
		if r < 0 {
			continue
		}
		out = append(out, Violation{
			Property: PropDamage, Cause: CauseRetriedCommand, Key: e.Key, Clients: []string{e.Client},
			AtMs: trace.Ms(e.T), Events: []int{r, i},
			Explanation: fmt.Sprintf("%s's %s to %s timed out and was retried at %s; the first attempt had already run, so %s ran twice (again at %s).",
				e.Client, strings.Join(e.Args, " "), e.Party, t.p.At(t.tr.Events[r].T), e.Args[0], t.p.At(e.T)),
		})
	}
	return out
}

// lossIn returns the first event in (from, to) that lost key, or a key
// named after it (its fence, "key:fence"), on Redis without a command; -1
// if none.
func (t *truth) lossIn(key string, from, to int64) int {
	best := -1
	for k, idx := range t.lostKeys {
		if !sameData(k, key) {
			continue
		}
		for _, i := range idx {
			if e := t.tr.Events[i]; e.T > from && e.T < to && (best < 0 || i < best) {
				best = i
			}
		}
	}
	return best
}

// whyLost explains why first's sale and second's both read one stock:
// the two held the lock at once, or the data was lost, written to a
// deposed master, or put back in between by a late or a stale write.
func (t *truth) whyLost(mv []Violation, first, second trace.Op) (cause, reason, why string, evs []int) {
	cause, reason = causeFor(mv, first.Client, second.Client, second.Return)
	why = ": one sale was a lost update."
	if l := t.lossIn(first.Key, first.Return, second.Return); l >= 0 {
		var what string
		cause, what = lossCause(t.p, t.tr.Events[l])
		return cause, "", " because " + what + " in between: one sale was undone.", []int{l}
	}
	// Either sale's write on a deposed master: the two masters each took
	// one, from the one stock they both held.
	for _, op := range []trace.Op{first, second} {
		if w, p := t.deposedWrite(op); w >= 0 {
			return CauseLostAfterFailover, "", " because " + t.deposedText(w, p) + "; one sale was undone.", []int{p, w}
		}
	}
	if w := t.lateWriteIn(first.Key, first.Return, second.Return); w >= 0 {
		we := t.tr.Events[w]
		return CauseDelayedWrite, "", fmt.Sprintf(" because %s's %s, an attempt it had given up on (timed out) and delayed in the network, landed at %s in between and put an older stock back: one sale was undone.",
			we.Client, strings.Join(we.Args, " "), t.p.At(we.T)), []int{w}
	}
	if cause != CauseUnexplained {
		if fenced, evs := t.fencedPair(first, second); fenced != "" {
			return cause, reason, fenced, evs
		}
		return cause, reason, why, nil
	}
	if v, w := t.staleWriteIn(mv, first.Key, first.Return, second.Return); v >= 0 {
		we := t.tr.Events[w]
		return mv[v].Cause, mv[v].Reason, fmt.Sprintf(" because %s, which held the lock together with another client (%s), wrote at %s in between and put an older stock back: one sale was undone.",
			we.Client, mv[v].Cause, t.p.At(we.T)), []int{w}
	}
	return cause, reason, why, nil
}

// staleWriteIn finds an accepted write to key in (from, to) by a client
// of a mutual-exclusion violation in mv that began before the write:
// (violation, write), or -1, -1.
func (t *truth) staleWriteIn(mv []Violation, key string, from, to int64) (int, int) {
	v := -1
	w := t.acceptedWriteIn(key, from, to, func(i int) bool {
		v = t.violationOf(mv, i)
		return v >= 0
	})
	if w < 0 {
		return -1, -1
	}
	return v, w
}

// lateWriteIn is the first accepted write to key in (from, to) that ran
// after its client had given up on it, or -1.
func (t *truth) lateWriteIn(key string, from, to int64) int {
	return t.acceptedWriteIn(key, from, to, t.late)
}

// acceptedWriteIn is the first event in (from, to) that wrote key, that
// the data accepted and that pick selects, or -1.
func (t *truth) acceptedWriteIn(key string, from, to int64, pick func(i int) bool) int {
	evs := t.tr.Events
	for i := sort.Search(len(evs), func(i int) bool { return evs[i].T > from }); i < len(evs) && evs[i].T < to; i++ {
		if t.resourceWrite(i, key) && writeAccepted(evs[i].Reply) && pick(i) {
			return i
		}
	}
	return -1
}

// deposedText tells write w, which landed on a master after promotion p
// had put another node in its place.
func (t *truth) deposedText(w, p int) string {
	we, pe := t.tr.Events[w], t.tr.Events[p]
	return fmt.Sprintf("%s wrote it to %s at %s, but %s had been promoted to master at %s: the write went to a deposed master",
		we.Client, we.Party, t.p.At(we.T), pe.Party, t.p.At(pe.T))
}

// sameData reports whether Redis key k holds part of the resource key
// (the data itself, or a companion such as its fence, "key:fence").
func sameData(k, key string) bool { return k == key || strings.HasPrefix(k, key+":") }

// lossCause classifies an event that lost a key.
func lossCause(p trace.Precision, e trace.Event) (string, string) {
	switch e.Kind {
	case trace.EvNodeStart:
		return CauseRestart, fmt.Sprintf("%s restarted at %s without persisting %s", e.Party, p.At(e.T), e.Key)
	case trace.EvReplicate:
		return CauseRestart, fmt.Sprintf("%s lost %s at %s in a full resync (%s)", e.Party, e.Key, p.At(e.T), e.Detail)
	case trace.EvDemote:
		return CauseLostAfterFailover, fmt.Sprintf("%s rejoined as a replica at %s and dropped %s", e.Party, p.At(e.T), e.Key)
	}
	return CauseLostAfterFailover, fmt.Sprintf("%s was promoted to master at %s without %s", e.Party, p.At(e.T), e.Key)
}

// dataLosses reports every loss of a resource key on Redis between its
// first write (the workload's initial value, or the first operation on
// it) and the last operation on it.
func dataLosses(t *truth, kinds ...string) []Violation {
	span := map[string][2]int64{}
	var keys []string
	for i := range t.tr.Events {
		if e := &t.tr.Events[i]; e.Kind == trace.EvWorkload && e.Key != "" {
			if _, seen := span[e.Key]; !seen {
				keys = append(keys, e.Key)
				span[e.Key] = [2]int64{e.T - 1, e.T}
			}
		}
	}
	for _, op := range t.tr.Ops {
		if !slices.Contains(kinds, op.Kind) {
			continue
		}
		s, seen := span[op.Key]
		if !seen {
			keys = append(keys, op.Key)
			s = [2]int64{op.Call, ret(op)}
		}
		span[op.Key] = [2]int64{min(s[0], op.Call), max(s[1], ret(op))}
	}
	var out []Violation
	for _, k := range keys {
		for _, i := range t.lostKeys[k] {
			e := t.tr.Events[i]
			if e.T <= span[k][0] || e.T >= span[k][1] {
				continue
			}
			cause, what := lossCause(t.p, e)
			out = append(out, Violation{Property: PropDamage, Cause: cause, Key: k, Clients: []string{}, AtMs: trace.Ms(e.T),
				Nodes: []string{e.Party}, Events: []int{i},
				Explanation: what + ": the writes it held were undone, and later operations saw the older value."})
		}
	}
	return out
}

func lostUpdates(t *truth, mv []Violation) []Violation {
	tr := t.tr
	byRead := map[int][]trace.Op{}
	var reads []int
	for _, op := range tr.Ops {
		if op.Kind != model.OpBuy {
			continue
		}
		if sold, read, ok := parseBuy(op.Result); ok && sold {
			if len(byRead[read]) == 0 {
				reads = append(reads, read)
			}
			byRead[read] = append(byRead[read], op)
		}
	}
	sort.Ints(reads)
	var out []Violation
	for _, r := range reads {
		ops := byRead[r]
		for _, second := range ops[1:] {
			first := ops[0]
			cause, reason, why, evs := t.whyLost(mv, first, second)
			out = append(out, Violation{
				Property: PropDamage, Cause: cause, Reason: reason, Key: first.Key,
				Clients: []string{first.Client, second.Client}, AtMs: trace.Ms(second.Return), Events: evs,
				Explanation: first.Client + " and " + second.Client + " both read stock " + strconv.Itoa(r) +
					" and wrote " + strconv.Itoa(r-1) + why,
			})
		}
	}
	return out
}

// splitFence finds which of two accepted writes went to a deposed master
// (split brain: the fence on each master saw only its own tokens), b
// first: its write event and the promotion before it.
func (t *truth) splitFence(a, b trace.Op) (int, int, bool) {
	for _, op := range []trace.Op{b, a} {
		if w, p := t.deposedWrite(op); p >= 0 {
			return w, p, true
		}
	}
	return -1, -1, false
}

// refusedFresh lists the writes a fenced storage refused although their
// token was not below the highest it had accepted before they were
// invoked (each with that accepted write): the storage's answers
// contradict each other, as it accepts any token not below the highest
// it has seen. Such a write was not stale. Recorded histories only: a
// simulated storage's refusals follow its own rules, which its trace's
// events show.
func refusedFresh(t *truth) []refusal {
	if !t.history {
		return nil
	}
	var accepted, refused []trace.Op
	for _, op := range t.tr.Ops {
		if op.Kind != model.OpWrite || op.Open() {
			continue
		}
		if _, err := strconv.ParseInt(op.Value, 10, 64); err != nil {
			continue
		}
		switch op.Result {
		case model.ResOK:
			accepted = append(accepted, op)
		case model.ResRejected:
			refused = append(refused, op)
		}
	}
	if len(refused) == 0 || len(accepted) == 0 {
		return nil
	}
	sort.SliceStable(accepted, func(i, j int) bool { return accepted[i].Return < accepted[j].Return })
	var out []refusal
	for _, op := range refused {
		tok, _ := strconv.ParseInt(op.Value, 10, 64)
		var hi *trace.Op
		var hiTok int64
		for i := range accepted {
			a := &accepted[i]
			if a.Return >= op.Call {
				break
			}
			if a.Key != op.Key {
				continue
			}
			if at, _ := strconv.ParseInt(a.Value, 10, 64); hi == nil || at > hiTok {
				hi, hiTok = a, at
			}
		}
		if hi != nil && tok >= hiTok {
			out = append(out, refusal{op, *hi})
		}
	}
	return out
}

// refusal is a write a fenced storage refused, and the accepted write of
// the highest token before it.
type refusal struct{ refused, accepted trace.Op }

// refusedFreshViolations reports each write of refusedFresh: the
// storage's inconsistency, on the data's key.
func refusedFreshViolations(t *truth) []Violation {
	var out []Violation
	for _, r := range refusedFresh(t) {
		op, a := r.refused, r.accepted
		clients := []string{op.Client}
		if a.Client != op.Client {
			clients = []string{a.Client, op.Client}
		}
		var evs []int
		for _, i := range t.clientEvents(op.Client, op.Call, op.Return) {
			if t.tr.Events[i].Key == op.Key {
				evs = append(evs, i)
			}
		}
		out = append(out, Violation{
			Property: PropDamage, Cause: CauseUnexplained, Key: op.Key, Clients: clients, AtMs: trace.Ms(op.Return), Events: evs,
			Explanation: fmt.Sprintf("the storage refused %s's write with token %s (invoked at %s, refused at %s) although the highest token it had accepted was %s, from %s at %s: a fenced storage refuses only a token below the highest it has seen, so its answers contradict each other; the refused write was not stale.",
				op.Client, op.Value, t.p.At(op.Call), t.p.At(op.Return), a.Value, a.Client, t.p.At(a.Return)),
		})
	}
	return out
}

// staleAccepts reports writes a fenced storage accepted with a token
// lower than one it had accepted before.
func staleAccepts(t *truth, mv []Violation) []Violation {
	tr := t.tr
	type best struct {
		tok int64
		op  trace.Op
	}
	hi := map[string]*best{}
	var writes []trace.Op
	for _, op := range tr.Ops {
		if op.Kind == model.OpWrite && op.Result == model.ResOK && !op.Open() {
			writes = append(writes, op)
		}
	}
	sort.SliceStable(writes, func(i, j int) bool { return writes[i].Return < writes[j].Return })
	var out []Violation
	for _, op := range writes {
		tok, err := strconv.ParseInt(op.Value, 10, 64)
		if err != nil {
			continue
		}
		b := hi[op.Key]
		if b != nil && tok < b.tok && b.op.Return < op.Call {
			cause, reason := causeFor(mv, b.op.Client, op.Client, op.Return)
			why := "the fence did not hold"
			var evs []int
			if l := t.lossIn(op.Key, b.op.Return, op.Return); l >= 0 {
				var what string
				cause, what = lossCause(t.p, tr.Events[l])
				reason, why, evs = "", "the fence forgot its highest token: "+what, []int{l}
			} else if w, p, ok := t.splitFence(op, b.op); ok {
				cause, reason, evs = CauseLostAfterFailover, "", []int{p, w}
				why = "the fence never saw the higher token: " + t.deposedText(w, p)
			} else if cause == CauseUnexplained {
				// No overlap let the lower token in: the tokens went backwards.
				cause = CauseFenceRegression
				why = "no overlap of the two clients' holds explains it: the fencing tokens went backwards (a later writer had the lower token) and the fence did not hold"
			}
			out = append(out, Violation{
				Property: PropDamage, Cause: cause, Reason: reason, Key: op.Key,
				Clients: []string{b.op.Client, op.Client}, AtMs: trace.Ms(op.Return), Events: evs,
				Explanation: fmt.Sprintf("the storage accepted %s's write with token %d at %s after accepting token %d from %s at %s: %s.",
					op.Client, tok, t.p.At(op.Return), b.tok, b.op.Client, t.p.At(b.op.Return), why),
			})
			continue
		}
		if b == nil || tok > b.tok {
			hi[op.Key] = &best{tok, op}
		}
	}
	return out
}

// finalReads returns, per set key, the read that returned last.
// The map is made on the first read: most workloads have none.
func finalReads(tr *trace.Trace) map[string]trace.Op {
	var out map[string]trace.Op
	for i := range tr.Ops {
		op := &tr.Ops[i]
		if op.Kind != model.OpRead || unknownOutcome(*op) {
			continue
		}
		if out == nil {
			out = map[string]trace.Op{}
		}
		if r, ok := out[op.Key]; !ok || op.Return > r.Return {
			out[op.Key] = *op
		}
	}
	return out
}

// lostAdds lists the acknowledged adds, completed before the final read
// began, that the final read lacks.
func lostAdds(tr *trace.Trace) []trace.Op {
	reads := finalReads(tr)
	if len(reads) == 0 {
		return nil // no read can lack an add
	}
	var out []trace.Op
	for _, op := range tr.Ops {
		r, ok := reads[op.Key]
		if op.Kind != model.OpAdd || op.Result != model.ResOK || op.Open() || !ok || op.Return >= r.Call {
			continue
		}
		if !setHas(r.Result, op.Value) {
			out = append(out, op)
		}
	}
	return out
}

func setHas(set, elem string) bool {
	for _, e := range model.SetElems(set) {
		if e == elem {
			return true
		}
	}
	return false
}

// deposedWrite finds op's last write to key and, when another node had
// been promoted to master before it landed, returns the write and the
// promotion; -1, -1 otherwise.
func (t *truth) deposedWrite(op trace.Op) (int, int) { return t.deposedCommand(op, false) }

// deposedRead is deposedWrite for op's last read of its key: a read
// served by a deposed master.
func (t *truth) deposedRead(op trace.Op) (int, int) { return t.deposedCommand(op, true) }

func (t *truth) deposedCommand(op trace.Op, read bool) (int, int) {
	w := -1
	for _, i := range t.clientEvents(op.Client, op.Call, ret(op)) {
		if e := t.tr.Events[i]; e.Kind == trace.EvCommand && sameData(e.Key, op.Key) && len(e.Args) > 0 && isRead(e.Args[0]) == read {
			w = i
		}
	}
	if w < 0 {
		return -1, -1
	}
	p := -1
	for _, i := range t.promotes {
		if i < w {
			p = i
		}
	}
	if p < 0 || t.tr.Events[p].Party == t.tr.Events[w].Party {
		return -1, -1
	}
	return w, p
}

// erasingWrite is the first accepted write of op's set (a SET, or a
// fenced storage script) after op's own write and before the final read
// at to that wrote a set without op's element; or -1.
func (t *truth) erasingWrite(op trace.Op, to int64) int {
	own := -1
	for _, i := range t.clientEvents(op.Client, op.Call, ret(op)) {
		if t.resourceWrite(i, op.Key) {
			own = i
		}
	}
	has := func(arg string) bool { return slices.Contains(model.SetElems(arg), op.Value) }
	for i := own + 1; own >= 0 && i < len(t.tr.Events); i++ {
		e := t.tr.Events[i]
		if e.T >= to {
			break
		}
		if t.resourceWrite(i, op.Key) && writeAccepted(e.Reply) && !slices.ContainsFunc(e.Args[1:], has) {
			return i
		}
	}
	return -1
}

// violationOf is the mutual-exclusion violation of mv, begun by the time
// of event w, that w's client took part in; or -1.
func (t *truth) violationOf(mv []Violation, w int) int {
	e := t.tr.Events[w]
	return slices.IndexFunc(mv, func(m Violation) bool {
		return m.Property == PropMutex && m.AtMs <= trace.Ms(e.T) && slices.Contains(m.Clients, e.Client)
	})
}

func lostElements(t *truth, mv []Violation) []Violation {
	reads := finalReads(t.tr)
	var out []Violation
	for _, op := range lostAdds(t.tr) {
		r := reads[op.Key]
		other, cause, reason, ok := partnerOf(mv, op.Client, op.Return)
		clients := []string{op.Client}
		why := "no mutual-exclusion violation involving " + op.Client + " explains it"
		var evs []int
		w, p := t.deposedWrite(op)
		ew, ev := t.erasingWrite(op, r.Return), -1
		if ew >= 0 {
			ev = t.violationOf(mv, ew)
		}
		rw, rp := t.deposedRead(r)
		switch l := t.lossIn(op.Key, op.Return, r.Return); {
		case l >= 0:
			cause, why = lossCause(t.p, t.tr.Events[l])
			reason, evs = "", []int{l}
		case p >= 0:
			cause, reason, evs = CauseLostAfterFailover, "", []int{p, w}
			why = t.deposedText(w, p)
		case rp >= 0:
			re, pe := t.tr.Events[rw], t.tr.Events[rp]
			cause, reason, evs = CauseLostAfterFailover, "", []int{rp, rw}
			why = fmt.Sprintf("the final read ran on %s at %s, but %s had been promoted to master at %s: it read a deposed master",
				re.Party, t.p.At(re.T), pe.Party, t.p.At(pe.T))
		case ew >= 0 && t.late(ew):
			e := t.tr.Events[ew]
			cause, reason, evs = CauseDelayedWrite, "", []int{ew}
			why = fmt.Sprintf("%s's write of the set, delayed in the network, landed at %s after %s had given up on it, and wrote back a set read before the add",
				e.Client, t.p.At(e.T), e.Client)
		case ok:
			clients = append(clients, other)
			why = fmt.Sprintf("%s held the lock at the same time (%s) and wrote back a set read before the add", other, cause)
		case ev >= 0:
			e, v := t.tr.Events[ew], mv[ev]
			cause, reason, evs = v.Cause, v.Reason, []int{ew}
			clients = append(clients, e.Client)
			why = fmt.Sprintf("%s, which held the lock together with another client (%s), wrote back at %s a set read before the add",
				e.Client, v.Cause, t.p.At(e.T))
		}
		out = append(out, Violation{
			Property: PropDamage, Cause: cause, Reason: reason, Key: op.Key, Clients: clients, AtMs: trace.Ms(r.Return), Events: evs,
			Explanation: fmt.Sprintf("%s's add of %s was acknowledged at %s, but the final read at %s lacks it: %s.",
				op.Client, op.Value, t.p.At(op.Return), t.p.At(r.Return), why),
		})
	}
	return out
}

// isRead reports a request or command verb that does not write.
func isRead(verb string) bool {
	switch strings.ToUpper(verb) {
	case "SELECT", "GET", "READ", "LOOKUP", "MGET", "EXISTS", "TTL", "PTTL", "SMEMBERS", "SISMEMBER",
		"HGET", "HGETALL", "HEXISTS", "LRANGE", "SCARD", "STRLEN", "TYPE", "PING", "WATCH", "UNWATCH", "MULTI":
		return true
	}
	return false
}

// fencedPair explains a lost update whose two writes both carried a
// fencing token and were both accepted: the storage rejects a token only
// below the highest it has seen, and a read carries none, so the older
// token's write landed first and the newer one wrote over it from the
// same stock. "" when the writes were not both fenced.
func (t *truth) fencedPair(a, b trace.Op) (string, []int) {
	wa, wb := t.acceptedWriteOf(a), t.acceptedWriteOf(b)
	if wa < 0 || wb < 0 {
		return "", nil
	}
	if t.tr.Events[wb].T < t.tr.Events[wa].T {
		wa, wb = wb, wa
	}
	ea, eb := t.tr.Events[wa], t.tr.Events[wb]
	ta, tb := model.WriteToken(ea.Args), model.WriteToken(eb.Args)
	if ta == "" || tb == "" {
		return "", nil
	}
	return fmt.Sprintf(" although both writes were fenced: %s's (token %s) landed at %s, before any write of %s's newer token %s (at %s), and the storage rejects only a token below the highest it has seen; the reads carry no token, so both sales counted the same unit: one sale was a lost update.",
		ea.Client, ta, t.p.At(ea.T), eb.Client, tb, t.p.At(eb.T)), []int{wa, wb}
}

// acceptedWriteOf is op's last write to its key that the data accepted,
// or -1. A fenced write's event may name the fence it changed
// ("key:fence") rather than the data.
func (t *truth) acceptedWriteOf(op trace.Op) int {
	w := -1
	for _, i := range t.clientEvents(op.Client, op.Call, ret(op)) {
		e := &t.tr.Events[i]
		if (e.Kind == trace.EvService || e.Kind == trace.EvCommand) && sameData(e.Key, op.Key) && len(e.Args) > 0 &&
			!isRead(e.Args[0]) && writeAccepted(e.Reply) {
			w = i
		}
	}
	return w
}

// ModelLockTokens names what a fence-regression of a lock's own tokens
// was found in (Violation.Model): the fencing tokens a recorded
// history's acquires were granted, not the storage's writes.
const ModelLockTokens = "lock-tokens"

// grantToken is the fencing token a recorded history's inferred grant
// (event e, "token=N") names; ok false when none.
func grantToken(e *trace.Event) (int64, bool) {
	for _, a := range e.Args {
		if s, ok := strings.CutPrefix(a, "token="); ok {
			v, err := strconv.ParseInt(s, 10, 64)
			return v, err == nil
		}
	}
	return 0, false
}

// tokenRegression is a grant of a lock key whose fencing token (lo) is
// below that of a grant of the key made before its acquire was invoked.
type tokenRegression struct {
	hi, lo       *grant
	hiTok, loTok int64
}

// tokenRegressions lists, for a recorded history whose acquires give
// their fencing tokens, each grant whose token is below the highest one
// granted of its key before its acquire was invoked, with that grant.
func (t *truth) tokenRegressions() []tokenRegression {
	if !t.history {
		return nil
	}
	type seen struct {
		g   *grant
		tok int64
		hi  int // the index of the highest token so far
	}
	byKey := map[string][]seen{}
	var out []tokenRegression
	for _, g := range t.grants {
		tok, ok := grantToken(&t.tr.Events[g.Create])
		if !ok {
			continue
		}
		call := g.T
		if g.Op >= 0 {
			call = t.tr.Ops[g.Op].Call
		}
		prev := byKey[g.Key]
		// Grants are in creation order: those made before call lead.
		if n := sort.Search(len(prev), func(i int) bool { return prev[i].g.T >= call }); n > 0 {
			if h := prev[prev[n-1].hi]; tok < h.tok {
				out = append(out, tokenRegression{hi: h.g, lo: g, hiTok: h.tok, loTok: tok})
			}
		}
		hi := len(prev)
		if len(prev) > 0 && prev[prev[len(prev)-1].hi].tok >= tok {
			hi = prev[len(prev)-1].hi
		}
		byKey[g.Key] = append(prev, seen{g, tok, hi})
	}
	return out
}

// regressedRefusals lists the writes a storage refused from the holder
// of a grant whose token went backwards (tokenRegressions), made while
// that grant was live: the rightful holder's writes, not stale ones.
func (t *truth) regressedRefusals(r tokenRegression) []trace.Op {
	var out []trace.Op
	for _, c := range t.processClients(model.ProcessOf(r.lo.Owner)) {
		for _, id := range t.opsBy.get(c) {
			op := t.tr.Ops[id]
			if op.Kind == model.OpWrite && !op.Open() && op.Result == model.ResRejected && op.Call >= r.lo.T && op.Call < r.lo.EndT {
				out = append(out, op)
			}
		}
	}
	return out
}

// tokenRegressionViolations reports each grant of tokenRegressions: the
// lock's fencing tokens went backwards (fence-regression), and the
// storage refusing the holder's writes for it is not fencing out a
// stale writer.
func tokenRegressionViolations(t *truth) []Violation {
	var out []Violation
	for _, r := range t.tokenRegressions() {
		evs := []int{r.hi.Create, r.lo.Create}
		text := fmt.Sprintf("the lock granted %s token %d at %s after granting %s token %d at %s: its fencing tokens went backwards, so a fenced storage refuses the later holder's writes",
			r.lo.Owner, r.loTok, t.p.At(r.lo.T), r.hi.Owner, r.hiTok, t.p.At(r.hi.T))
		if ws := t.regressedRefusals(r); len(ws) > 0 {
			w := ws[0]
			text += fmt.Sprintf("; the storage refused %s's write to %q with token %s at %s while it held the lock: the rightful holder's write, not a stale one", w.Client, w.Key, w.Value, t.p.At(w.Return))
			if len(ws) > 1 {
				text += fmt.Sprintf(" (and %d more)", len(ws)-1)
			}
			for _, i := range t.clientEvents(w.Client, w.Call, w.Return) {
				if t.tr.Events[i].Key == w.Key {
					evs = append(evs, i)
				}
			}
		}
		out = append(out, Violation{Property: PropDamage, Cause: CauseFenceRegression, Model: ModelLockTokens, Key: r.lo.Key,
			Clients: []string{r.hi.Owner, r.lo.Owner}, AtMs: trace.Ms(r.lo.T), Events: sortedUnique(evs), Explanation: text + "."})
	}
	return out
}
