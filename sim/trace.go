package sim

import "github.com/locksim/locksim/sim/trace"

// recorder accumulates the trace of one world.
type recorder struct {
	w     *World
	trace trace.Trace
	last  int64         // time of the last recorded event or operation
	first []trace.Event // the first eventBlock events, as they are
	done  [][]byte      // later events packed by rest, in full chunks, in order
	cur   []byte        // the chunk being filled
	rest  *eventStream  // what the packed events refer to: nil in a short run
}

// eventBlock is how many events stay as they are: a short run's events
// are returned without a copy; a long run's later events are packed
// (eventStream), a dozen bytes each until the run ends. The block is
// first's capacity (a test can give a world a smaller one).
const eventBlock = 256

func (r *recorder) event(e trace.Event) {
	e.T = int64(r.w.now)
	r.last = e.T
	if r.first == nil {
		r.first = make([]trace.Event, 0, eventBlock)
	}
	if len(r.first) < cap(r.first) {
		r.first = append(r.first, e)
		return
	}
	r.pack(&e)
}

// pack appends e to the stream.
func (r *recorder) pack(e *trace.Event) {
	if r.rest == nil {
		r.rest = &eventStream{}
	}
	if cap(r.cur)-len(r.cur) < maxPackedEvent {
		if r.cur != nil {
			r.done = append(r.done, r.cur)
		}
		r.cur = nextChunk(cap(r.cur))
	}
	r.cur = r.rest.add(r.cur, *e)
}

// events returns every event recorded so far in one slice: the first
// block itself when there is no other.
func (r *recorder) events() []trace.Event {
	if r.cur == nil {
		return r.first[:len(r.first):len(r.first)]
	}
	out := make([]trace.Event, 0, len(r.first)+r.rest.n)
	out = append(out, r.first...)
	d := r.rest.reader()
	for _, c := range r.done {
		out = d.chunk(out, c)
	}
	return d.chunk(out, r.cur)
}

// opBlock is the room for operations a run starts with: a short run's
// history fits, without growing it step by step.
const opBlock = 64

func (r *recorder) invoke(client, process, kind, key, value string) int {
	id := len(r.trace.Ops)
	r.last = int64(r.w.now)
	if r.trace.Ops == nil {
		r.trace.Ops = make([]trace.Op, 0, opBlock)
	}
	r.trace.Ops = append(r.trace.Ops, trace.Op{
		ID: id, Client: client, Process: process, Kind: kind, Key: key, Value: value,
		Call: int64(r.w.now), Return: -1,
	})
	return id
}

func (r *recorder) ret(id int, result string) {
	op := &r.trace.Ops[id]
	op.Result = result
	op.Return = int64(r.w.now)
	r.last = op.Return
}
