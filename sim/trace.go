package sim

import "github.com/locksim/locksim/sim/trace"

// recorder accumulates the trace of one world.
type recorder struct {
	w     *World
	trace trace.Trace
	last  int64           // time of the last recorded event or operation
	done  [][]trace.Event // full blocks of events, in order
	cur   []trace.Event   // the block being filled
}

// eventBlock is how many events a block holds: blocks are never copied
// as they fill, unlike one growing slice of large structs.
const eventBlock = 256

func (r *recorder) event(e trace.Event) {
	e.T = int64(r.w.now)
	r.last = e.T
	if len(r.cur) == cap(r.cur) {
		if r.cur != nil {
			r.done = append(r.done, r.cur)
		}
		r.cur = make([]trace.Event, 0, eventBlock)
	}
	r.cur = append(r.cur, e)
}

// events returns every event recorded so far in one slice: the block
// itself when there is one.
func (r *recorder) events() []trace.Event {
	if len(r.done) == 0 {
		return r.cur[:len(r.cur):len(r.cur)]
	}
	out := make([]trace.Event, 0, len(r.done)*eventBlock+len(r.cur))
	for _, b := range r.done {
		out = append(out, b...)
	}
	return append(out, r.cur...)
}

func (r *recorder) invoke(client, process, kind, key, value string) int {
	id := len(r.trace.Ops)
	r.last = int64(r.w.now)
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
