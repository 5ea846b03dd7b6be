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

// trace turns operations of h (one group of keys, or all of them), in
// any order, into the trace the checker reads: the operations as client
// histories (times from the first event of the whole history) and, since a
// recorded history has no server log, the lock keys' lives on the server
// inferred from them:
//
//   - an acquire that returned ok created the key at its return (the
//     latest it can have been set); with lease_ms it expires lease_ms
//     later unless released or renewed first;
//   - another process's acquire that returned ok while the key was
//     still live proves the key gone: it expired then, if its lease
//     could have run out by then (lease_ms after the acquire's invoke),
//     or the owner's release of unknown outcome (info, or no completion)
//     deleted it; otherwise the service granted it twice: both grants
//     stay live, each ended by its own owner's release or lease, and the
//     checker reports a double grant (mutual exclusion), not a release
//     by a client that released nothing;
//   - a release that returned ok deleted the caller's key at its invoke;
//     one that returned ok while only another process held the lock
//     deleted that process's key (a foreign release);
//   - a renew that returned ok moved the key's expiry lease_ms (the
//     renew's, else the acquire's) past its return; one that failed
//     found the key gone: its lease ended at the renew (from its invoke
//     on, by its return at the latest).
//
// Acquires of unknown outcome (info, or no completion) take no key.
// Writes are the protected data's (the token, when given, is the
// fencing token the storage judged); reads are drawn, not judged.
// Leases still live at the history's last event expire then.
func (h *History) trace(ops []op) *trace.Trace {
	// By invocation time, then process name, then input order (which only
	// orders one process's operations): operations of different processes
	// at one time are concurrent, so the order of their lines must not
	// matter.
	slices.SortFunc(ops, func(x, y op) int {
		return cmp.Or(cmp.Compare(x.call, y.call), cmp.Compare(h.names[x.proc], h.names[y.proc]),
			cmp.Compare(x.invLine, y.invLine))
	})
	b := &builder{h: h, t0: h.t0, end: h.tEnd - h.t0, keys: map[int32][]*liveGrant{},
		events: make([]seqEvent, 0, len(ops)+len(ops)/2)} // one per operation, and the expiries
	tr := &trace.Trace{Ops: make([]trace.Op, 0, len(ops))}
	for i := range ops {
		if op, ok := b.op(&ops[i], len(tr.Ops)); ok {
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
	return tr
}

type builder struct {
	h      *History
	t0     int64
	end    int64
	events []seqEvent
	keys   map[int32][]*liveGrant // live grants by lock key's node
}

// seqEvent orders events of one instant as they were inferred.
type seqEvent struct {
	trace.Event
	seq int
}

type liveGrant struct {
	owner    int32 // the process's node
	deadline int64 // math.MaxInt64: no lease
	earliest int64 // the earliest its lease can have run out
	lease    int64 // ns
}

func (b *builder) emit(e trace.Event) {
	b.events = append(b.events, seqEvent{e, len(b.events)})
}

// name is the name of a process's or key's node.
func (b *builder) name(n int32) string { return b.h.names[n] }

// op is o as a client operation; reads are none (events only).
func (b *builder) op(o *op, id int) (trace.Op, bool) {
	p := b.name(o.proc)
	op := trace.Op{ID: id, Client: p, Process: p, Key: b.name(o.key), Value: o.value,
		Call: o.call - b.t0, Return: -1}
	done := o.done()
	if done {
		op.Return = o.ret - b.t0
	}
	switch o.f {
	case FAcquire:
		op.Kind = model.OpAcquire
	case FRelease:
		op.Kind = model.OpRelease
	case FRenew:
		op.Kind = model.OpRenew
	case FWrite:
		op.Kind, op.Value = model.OpWrite, o.token
	default:
		return trace.Op{}, false
	}
	if !done {
		return op, true
	}
	switch o.result {
	case TypeOK:
		op.Result = model.ResOK
	case TypeInfo:
		op.Result = model.ResError
	case TypeFail:
		switch o.f {
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
	o    *op
}

// serverEvents infers the lock keys' lives and records the data's
// operations, in time order.
func (b *builder) serverEvents(ops []op) {
	var effects []effect
	infoRelease := map[[2]int32]int64{} // owner, key -> call of a release of unknown outcome
	for i := range ops {
		o := &ops[i]
		done := o.done()
		switch {
		case o.f == FRead && done && o.result == TypeOK:
			b.emit(trace.Event{T: o.ret - b.t0, Kind: trace.EvService, Party: Data, Client: b.name(o.proc), Key: b.name(o.key),
				Args: []string{"read", b.name(o.key)}, Reply: o.value})
		case o.f == FWrite && done && o.result != TypeInfo:
			reply := model.ResOK
			if o.result == TypeFail {
				reply = model.ResRejected
			}
			args := []string{"write", b.name(o.key), o.value}
			if o.token != "" {
				args = append(args, "token="+o.token)
			}
			b.emit(trace.Event{T: o.call - b.t0, Kind: trace.EvService, Party: Data, Client: b.name(o.proc), Key: b.name(o.key),
				Args: args, Reply: reply})
		case o.f == FRelease && (!done || o.result == TypeInfo):
			// Of unknown outcome, whether it ended in info or never
			// completed: placed when a rival's acquire needs it (see grant).
			infoRelease[[2]int32{o.proc, o.key}] = o.call - b.t0
		case !done || o.f == FRead || o.f == FWrite:
		case o.result == TypeOK && o.f == FRelease:
			effects = append(effects, effect{o.call - b.t0, o.invLine, o})
		case o.result == TypeOK:
			effects = append(effects, effect{o.ret - b.t0, o.doneLine, o})
		case o.f == FRenew && o.result == TypeFail:
			// The key was gone when it ran: from its invoke on.
			effects = append(effects, effect{o.call - b.t0, o.invLine, o})
		}
	}
	effects = b.order(effects)
	var keys []int32 // lock keys in order of first grant
	for _, ef := range effects {
		if _, ok := b.keys[ef.o.key]; !ok {
			keys = append(keys, ef.o.key)
		}
		b.expireUntil(ef.o.key, ef.t)
		switch ef.o.f {
		case FAcquire:
			b.grant(ef, infoRelease)
		case FRelease:
			b.release(ef)
		case FRenew:
			if ef.o.result == TypeOK {
				b.renew(ef)
			} else {
				b.renewFailed(ef)
			}
		}
	}
	for _, key := range keys {
		b.expireUntil(key, b.end)
	}
}

// order sorts effects by time. Effects of different processes at one
// time are concurrent (the clock cannot order them), so they are taken
// in the order that frees the lock first: releases, then renewals, then
// acquires, and by process name among equals; one process's effects keep
// their order in the input. The result does not depend on how the lines
// of different processes interleave.
func (b *builder) order(effects []effect) []effect {
	slices.SortFunc(effects, func(x, y effect) int {
		return cmp.Or(cmp.Compare(x.t, y.t), cmp.Compare(b.name(x.o.proc), b.name(y.o.proc)), cmp.Compare(x.line, y.line))
	})
	out := make([]effect, 0, len(effects))
	for i := 0; i < len(effects); {
		j := i + 1
		for j < len(effects) && effects[j].t == effects[i].t {
			j++
		}
		if j-i == 1 || effects[i].o.proc == effects[j-1].o.proc {
			out = append(out, effects[i:j]...)
			i = j
			continue
		}
		// Merge the processes' runs (each in its order) by rank, then name.
		run := slices.Clone(effects[i:j])
		for len(run) > 0 {
			best := 0
			for k := 1; k < len(run); k++ {
				if run[k].o.proc == run[k-1].o.proc {
					continue // not the head of its process's run
				}
				if effectRank(run[k].o) < effectRank(run[best].o) {
					best = k
				}
			}
			out = append(out, run[best])
			run = slices.Delete(run, best, best+1)
		}
		i = j
	}
	return out
}

// effectRank orders concurrent effects: what frees the lock first.
func effectRank(o *op) int {
	switch {
	case o.f == FRelease:
		return 0
	case o.f == FRenew && o.result != TypeOK:
		return 0 // a renew that found the key gone
	case o.f == FRenew:
		return 1
	}
	return 2
}

// expireUntil expires key's grants whose lease ran out by t.
func (b *builder) expireUntil(key int32, t int64) {
	live := b.keys[key][:0]
	for _, g := range b.keys[key] {
		if g.deadline <= t {
			e := trace.Event{T: g.deadline, Kind: trace.EvExpire, Party: Server, Key: b.name(key), Change: trace.KeyExpired,
				Detail: "inferred: " + b.name(g.owner) + "'s lease ran out"}
			if len(b.keys[key]) > 1 {
				e.Client = b.name(g.owner) // granted twice: the expiry ends this owner's grant only
			}
			b.emit(e)
			continue
		}
		live = append(live, g)
	}
	b.keys[key] = live
}

func (b *builder) grant(ef effect, infoRelease map[[2]int32]int64) {
	o := ef.o
	key, proc := b.name(o.key), b.name(o.proc)
	lease := o.lease * 1e6
	live := b.keys[o.key][:0]
	var twice []string
	for _, g := range b.keys[o.key] {
		if g.owner == o.proc {
			live = append(live, g)
			continue
		}
		owner := b.name(g.owner)
		if at, ok := infoRelease[[2]int32{g.owner, o.key}]; ok && at <= ef.t {
			b.emit(trace.Event{T: at, Kind: trace.EvCommand, Party: Server, Client: owner, Key: key,
				Args: []string{"release", key}, Reply: "?", Change: trace.KeyDeleted,
				Detail: "inferred: " + proc + " acquired it later, so " + owner + "'s release of unknown outcome took effect"})
			continue
		}
		if g.earliest <= ef.t {
			e := trace.Event{T: ef.t, Kind: trace.EvExpire, Party: Server, Key: key, Change: trace.KeyExpired,
				Detail: "inferred: " + proc + " acquired it, so " + owner + "'s lease had run out"}
			if len(b.keys[o.key]) > 1 {
				e.Client = owner // granted twice: the expiry ends this owner's grant only
			}
			b.emit(e)
			continue
		}
		// Granted while the owner's key can have been neither released
		// nor expired: the service granted the lock twice. Both grants
		// stay live until their owners release them or their leases end.
		live = append(live, g)
		twice = append(twice, owner)
	}
	args := []string{"acquire", key}
	if o.value != "" {
		args = append(args, o.value)
	}
	if o.token != "" {
		args = append(args, "token="+o.token) // the fencing token the lock granted
	}
	g := &liveGrant{owner: o.proc, deadline: math.MaxInt64, earliest: math.MaxInt64, lease: lease}
	if lease > 0 {
		g.deadline, g.earliest = ef.t+lease, o.call-b.t0+lease
		args = append(args, fmt.Sprintf("lease_ms=%d", lease/1e6))
	}
	for _, l := range live {
		if l.owner == o.proc {
			// Taken again by its owner (reentry): one key, its lease restarted.
			l.deadline, l.earliest = max(l.deadline, g.deadline), max(l.earliest, g.earliest)
			b.emit(trace.Event{T: ef.t, Kind: trace.EvCommand, Party: Server, Client: proc, Key: key,
				Args: args, Reply: "OK", Detail: fmt.Sprintf("inferred from line %d", ef.line)})
			b.keys[o.key] = live
			return
		}
	}
	e := trace.Event{T: ef.t, Kind: trace.EvCommand, Party: Server, Client: proc, Key: key,
		Args: args, Reply: "OK", Change: trace.KeyCreated, Detail: fmt.Sprintf("inferred from line %d", ef.line)}
	if len(twice) > 0 {
		e.Detail += fmt.Sprintf(": granted while %s's key could not have expired or been released (a double grant)", strings.Join(twice, ", "))
	}
	b.emit(e)
	b.keys[o.key] = append(live, g)
}

func (b *builder) release(ef effect) {
	o := ef.o
	live := b.keys[o.key]
	victim := slices.IndexFunc(live, func(g *liveGrant) bool { return g.owner == o.proc })
	if victim < 0 && len(live) > 0 {
		victim = 0 // returned ok while another process held the lock: it deleted that key
	}
	if victim < 0 {
		return
	}
	detail := fmt.Sprintf("inferred from line %d", ef.line)
	if live[victim].owner != o.proc {
		detail += ": the release returned ok while " + b.name(live[victim].owner) + " held the lock"
	}
	b.emit(trace.Event{T: ef.t, Kind: trace.EvCommand, Party: Server, Client: b.name(o.proc), Key: b.name(o.key),
		Args: []string{"release", b.name(o.key)}, Reply: "OK", Change: trace.KeyDeleted, Detail: detail})
	b.keys[o.key] = slices.Delete(live, victim, victim+1)
}

func (b *builder) renew(ef effect) {
	o := ef.o
	live := b.keys[o.key]
	i := slices.IndexFunc(live, func(g *liveGrant) bool { return g.owner == o.proc })
	if i < 0 && len(live) > 0 {
		i = 0 // extended another process's key
	}
	if i < 0 {
		return
	}
	g := live[i]
	lease := o.lease * 1e6
	if lease <= 0 {
		lease = g.lease
	}
	args := []string{"renew", b.name(o.key)}
	if lease > 0 {
		g.deadline, g.earliest = ef.t+lease, max(g.earliest, o.call-b.t0+lease)
		args = append(args, fmt.Sprintf("lease_ms=%d", lease/1e6))
	}
	b.emit(trace.Event{T: ef.t, Kind: trace.EvCommand, Party: Server, Client: b.name(o.proc), Key: b.name(o.key),
		Args: args, Reply: "OK", Detail: fmt.Sprintf("inferred from line %d", ef.line)})
}

// renewFailed ends the lease of the caller's key at a renew that failed:
// the key was gone when the renew ran, between its invoke and its
// return, so a rival's grant from the invoke on is legal, and the key
// expires at the return at the latest.
func (b *builder) renewFailed(ef effect) {
	o := ef.o
	for _, g := range b.keys[o.key] {
		if g.owner == o.proc {
			g.earliest = min(g.earliest, o.call-b.t0)
			g.deadline = min(g.deadline, o.ret-b.t0)
		}
	}
}
