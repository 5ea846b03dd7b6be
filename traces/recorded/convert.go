package recorded

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// Server is the party of the inferred lock-key events: what the lock
// service must have done for the clients to see what they saw.
const Server = "server"

// Data is the party of the protected data's reads and writes.
const Data = "data"

// Trace turns h into the trace the checker reads: the operations as
// client histories (times from the history's first event) and, since a
// recorded history has no server log, the lock keys' lives on the server
// inferred from them:
//
//   - an acquire that returned ok created the key at its return (the
//     latest it can have been set); with lease_ms it expires lease_ms
//     later unless released or renewed first;
//   - another process's acquire that returned ok while the key was
//     still live proves the key gone: it expired then, if its lease
//     could have run out by then (lease_ms after the acquire's invoke),
//     or the owner's release of unknown outcome deleted it; otherwise
//     the service granted it twice: one key holds one value, so the
//     second acquire replaced the first owner's (as a SET without NX
//     would), which the checker reports as a foreign release;
//   - a release that returned ok deleted the caller's key at its invoke;
//     one that returned ok while only another process held the lock
//     deleted that process's key (a foreign release);
//   - a renew that returned ok moved the key's expiry lease_ms (the
//     renew's, else the acquire's) past its return.
//
// Acquires of unknown outcome (info, or no completion) take no key.
// Writes are the protected data's (the token, when given, is the
// fencing token the storage judged); reads are drawn, not judged.
// LeaseMs is the first lease an acquire names (0: none).
func Trace(h *History) (tr *trace.Trace, leaseMs int64, err error) {
	if len(h.Events) == 0 {
		return nil, 0, &Error{Msg: "no events in the history"}
	}
	t0, tEnd := h.Events[0].Time, h.Events[0].Time
	for _, e := range h.Events {
		t0, tEnd = min(t0, e.Time), max(tEnd, e.Time)
	}
	if tEnd-t0 < 0 || tEnd-t0 > math.MaxInt64/2 {
		return nil, 0, &Error{Msg: "the history's times span more than 292 years"}
	}
	b := &builder{h: h, t0: t0, end: tEnd - t0, keys: map[string][]*liveGrant{},
		events: make([]seqEvent, 0, len(h.Ops)+len(h.Ops)/2)} // one per operation, and the expiries
	ops := slices.Clone(h.Ops)
	slices.SortStableFunc(ops, func(x, y Op) int { return cmp.Compare(h.Events[x.Invoke].Time, h.Events[y.Invoke].Time) })
	tr = &trace.Trace{Ops: make([]trace.Op, 0, len(ops))}
	for _, o := range ops {
		inv := h.Events[o.Invoke]
		if leaseMs == 0 && inv.F == FAcquire {
			leaseMs = b.lease(o)
		}
		if op, ok := b.op(o, len(tr.Ops)); ok {
			tr.Ops = append(tr.Ops, op)
		}
	}
	b.serverEvents(ops)
	slices.SortStableFunc(b.events, func(x, y seqEvent) int {
		if c := cmp.Compare(x.T, y.T); c != 0 {
			return c
		}
		return cmp.Compare(x.seq, y.seq)
	})
	tr.Events = make([]trace.Event, len(b.events))
	for i, e := range b.events {
		tr.Events[i] = e.Event
	}
	tr.Stats = trace.Stats{SimNs: b.end, Events: len(tr.Events)}
	return tr, leaseMs, nil
}

type builder struct {
	h      *History
	t0     int64
	end    int64
	events []seqEvent
	keys   map[string][]*liveGrant // live grants by lock key
}

// seqEvent orders events of one instant as they were inferred.
type seqEvent struct {
	trace.Event
	seq int
}

type liveGrant struct {
	owner    string
	deadline int64 // math.MaxInt64: no lease
	earliest int64 // the earliest its lease can have run out
	lease    int64 // ns
}

func (b *builder) emit(e trace.Event) {
	b.events = append(b.events, seqEvent{e, len(b.events)})
}

func (b *builder) at(e Event) int64 { return e.Time - b.t0 }

// done is o's completion, or the zero Event and false.
func (b *builder) done(o Op) (Event, bool) {
	if o.Done < 0 {
		return Event{}, false
	}
	return b.h.Events[o.Done], true
}

// lease is the lease an acquire or renew names, its completion's first.
func (b *builder) lease(o Op) int64 {
	if d, ok := b.done(o); ok && d.LeaseMs > 0 {
		return d.LeaseMs
	}
	return b.h.Events[o.Invoke].LeaseMs
}

// op is o as a client operation; reads are none (events only).
func (b *builder) op(o Op, id int) (trace.Op, bool) {
	inv := b.h.Events[o.Invoke]
	op := trace.Op{ID: id, Client: inv.Process, Process: inv.Process, Key: inv.Key, Value: inv.Value,
		Call: b.at(inv), Return: -1}
	d, done := b.done(o)
	if done {
		op.Return = b.at(d)
		if !d.Null && inv.F != FWrite {
			op.Value = d.Value // the token an acquire made
		}
	}
	switch inv.F {
	case FAcquire:
		op.Kind = model.OpAcquire
	case FRelease:
		op.Kind = model.OpRelease
	case FRenew:
		op.Kind = model.OpRenew
	case FWrite:
		op.Kind, op.Value = model.OpWrite, inv.Token
	default:
		return trace.Op{}, false
	}
	if !done {
		return op, true
	}
	switch d.Type {
	case TypeOK:
		op.Result = model.ResOK
	case TypeInfo:
		op.Result = model.ResError
	case TypeFail:
		switch inv.F {
		case FAcquire:
			op.Result = model.ResFail
		case FWrite:
			op.Result = model.ResRejected
		default:
			op.Result = model.ResNotOwner
		}
	}
	return op, true
}

// effect is one thing the server must have done, at a time.
type effect struct {
	t    int64
	line int
	o    Op
}

// serverEvents infers the lock keys' lives and records the data's
// operations, in time order.
func (b *builder) serverEvents(ops []Op) {
	var effects []effect
	infoRelease := map[[2]string]int64{} // owner, key -> call of a release of unknown outcome
	for _, o := range ops {
		inv := b.h.Events[o.Invoke]
		d, done := b.done(o)
		switch {
		case inv.F == FRead && done && d.Type == TypeOK:
			v := d.Value
			if d.Null {
				v = "nil"
			}
			b.emit(trace.Event{T: b.at(d), Kind: trace.EvService, Party: Data, Client: inv.Process, Key: inv.Key,
				Args: []string{"read", inv.Key}, Reply: v})
		case inv.F == FWrite && done && d.Type != TypeInfo:
			reply := model.ResOK
			if d.Type == TypeFail {
				reply = model.ResRejected
			}
			args := []string{"write", inv.Key, inv.Value}
			if inv.Token != "" {
				args = append(args, "token="+inv.Token)
			}
			b.emit(trace.Event{T: b.at(inv), Kind: trace.EvService, Party: Data, Client: inv.Process, Key: inv.Key,
				Args: args, Reply: reply})
		case !done || inv.F == FRead || inv.F == FWrite:
		case d.Type == TypeOK && inv.F == FRelease:
			effects = append(effects, effect{b.at(inv), inv.Line, o})
		case d.Type == TypeOK:
			effects = append(effects, effect{b.at(d), d.Line, o})
		case d.Type == TypeInfo && inv.F == FRelease:
			// Placed when a rival's acquire needs it (see grant).
			infoRelease[[2]string{inv.Process, inv.Key}] = b.at(inv)
		}
	}
	slices.SortStableFunc(effects, func(x, y effect) int {
		if c := cmp.Compare(x.t, y.t); c != 0 {
			return c
		}
		return cmp.Compare(x.line, y.line)
	})
	for _, ef := range effects {
		inv := b.h.Events[ef.o.Invoke]
		b.expireUntil(inv.Key, ef.t)
		switch inv.F {
		case FAcquire:
			b.grant(ef, inv, infoRelease)
		case FRelease:
			b.release(ef, inv)
		case FRenew:
			b.renew(ef, inv)
		}
	}
	for key := range b.keys {
		b.expireUntil(key, b.end)
	}
}

// expireUntil expires key's grants whose lease ran out by t.
func (b *builder) expireUntil(key string, t int64) {
	live := b.keys[key][:0]
	for _, g := range b.keys[key] {
		if g.deadline <= t {
			b.emit(trace.Event{T: g.deadline, Kind: trace.EvExpire, Party: Server, Key: key, Change: trace.KeyExpired,
				Detail: "inferred: " + g.owner + "'s lease ran out"})
			continue
		}
		live = append(live, g)
	}
	b.keys[key] = live
}

func (b *builder) grant(ef effect, inv Event, infoRelease map[[2]string]int64) {
	lease := b.lease(ef.o) * 1e6
	live := b.keys[inv.Key][:0]
	var replaced []string
	for _, g := range b.keys[inv.Key] {
		if g.owner == inv.Process {
			live = append(live, g)
			continue
		}
		if at, ok := infoRelease[[2]string{g.owner, inv.Key}]; ok && at <= ef.t {
			b.emit(trace.Event{T: at, Kind: trace.EvCommand, Party: Server, Client: g.owner, Key: inv.Key,
				Args: []string{"release", inv.Key}, Reply: "?", Change: trace.KeyDeleted,
				Detail: "inferred: " + inv.Process + " acquired it later, so " + g.owner + "'s release of unknown outcome took effect"})
			continue
		}
		if g.earliest <= ef.t {
			b.emit(trace.Event{T: ef.t, Kind: trace.EvExpire, Party: Server, Key: inv.Key, Change: trace.KeyExpired,
				Detail: "inferred: " + inv.Process + " acquired it, so " + g.owner + "'s lease had run out"})
			continue
		}
		// Granted while the owner's key can have been neither released
		// nor expired: one key has one value, so this acquire replaced it.
		replaced = append(replaced, g.owner)
	}
	args := []string{"acquire", inv.Key}
	if v := b.acquireValue(ef.o); v != "" {
		args = append(args, v)
	}
	g := &liveGrant{owner: inv.Process, deadline: math.MaxInt64, earliest: math.MaxInt64, lease: lease}
	if lease > 0 {
		g.deadline, g.earliest = ef.t+lease, b.at(inv)+lease
		args = append(args, fmt.Sprintf("lease_ms=%d", lease/1e6))
	}
	for _, o := range live {
		if o.owner == inv.Process {
			// Taken again by its owner (reentry): one key, its lease restarted.
			o.deadline, o.earliest = max(o.deadline, g.deadline), max(o.earliest, g.earliest)
			b.emit(trace.Event{T: ef.t, Kind: trace.EvCommand, Party: Server, Client: inv.Process, Key: inv.Key,
				Args: args, Reply: "OK", Detail: fmt.Sprintf("inferred from line %d", ef.line)})
			b.keys[inv.Key] = live
			return
		}
	}
	e := trace.Event{T: ef.t, Kind: trace.EvCommand, Party: Server, Client: inv.Process, Key: inv.Key,
		Args: args, Reply: "OK", Change: trace.KeyCreated, Detail: fmt.Sprintf("inferred from line %d", ef.line)}
	if len(replaced) > 0 {
		e.Change = trace.KeyOverwritten
		e.Detail += fmt.Sprintf(": granted while %s's key could not have expired or been released", strings.Join(replaced, ", "))
	}
	b.emit(e)
	b.keys[inv.Key] = append(live, g)
}

func (b *builder) acquireValue(o Op) string {
	if d, ok := b.done(o); ok && !d.Null {
		return d.Value
	}
	return b.h.Events[o.Invoke].Value
}

func (b *builder) release(ef effect, inv Event) {
	live := b.keys[inv.Key]
	victim := slices.IndexFunc(live, func(g *liveGrant) bool { return g.owner == inv.Process })
	if victim < 0 && len(live) > 0 {
		victim = 0 // returned ok while another process held the lock: it deleted that key
	}
	if victim < 0 {
		return
	}
	detail := fmt.Sprintf("inferred from line %d", ef.line)
	if live[victim].owner != inv.Process {
		detail += ": the release returned ok while " + live[victim].owner + " held the lock"
	}
	b.emit(trace.Event{T: ef.t, Kind: trace.EvCommand, Party: Server, Client: inv.Process, Key: inv.Key,
		Args: []string{"release", inv.Key}, Reply: "OK", Change: trace.KeyDeleted, Detail: detail})
	b.keys[inv.Key] = slices.Delete(live, victim, victim+1)
}

func (b *builder) renew(ef effect, inv Event) {
	live := b.keys[inv.Key]
	i := slices.IndexFunc(live, func(g *liveGrant) bool { return g.owner == inv.Process })
	if i < 0 && len(live) > 0 {
		i = 0 // extended another process's key
	}
	if i < 0 {
		return
	}
	g := live[i]
	lease := b.lease(ef.o) * 1e6
	if lease <= 0 {
		lease = g.lease
	}
	args := []string{"renew", inv.Key}
	if lease > 0 {
		g.deadline, g.earliest = ef.t+lease, max(g.earliest, b.at(inv)+lease)
		args = append(args, fmt.Sprintf("lease_ms=%d", lease/1e6))
	}
	b.emit(trace.Event{T: ef.t, Kind: trace.EvCommand, Party: Server, Client: inv.Process, Key: inv.Key,
		Args: args, Reply: "OK", Detail: fmt.Sprintf("inferred from line %d", ef.line)})
}
