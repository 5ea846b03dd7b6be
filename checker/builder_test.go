package checker

import (
	"sort"
	"time"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// tb builds a trace.Trace by hand: events and operations in any order,
// times in seconds; trace() sorts them as the recorder would.
type tb struct {
	events []trace.Event
	ops    []trace.Op
}

func sec(x float64) int64 { return int64(x * 1e9) }

func dur(x float64) time.Duration { return time.Duration(sec(x)) }

func (b *tb) add(at float64, e trace.Event) *tb {
	e.T = sec(at)
	b.events = append(b.events, e)
	return b
}

// cmd records a command a node ran; Key is its first key.
func (b *tb) cmd(at float64, node, client, reply, change string, args ...string) *tb {
	key := ""
	switch {
	case len(args) > 3 && args[0] == "EVAL":
		key = args[3]
	case len(args) > 1:
		key = args[1]
	}
	return b.add(at, trace.Command(node, client, key, args, reply, change))
}

func (b *tb) setnx(at float64, node, client, key, ttl string) *tb {
	return b.cmd(at, node, client, "OK", trace.KeyCreated, "SET", key, client, "EX", ttl, "NX")
}

func (b *tb) setnxBusy(at float64, node, client, key, ttl string) *tb {
	return b.cmd(at, node, client, "(nil)", "", "SET", key, client, "EX", ttl, "NX")
}

func (b *tb) del(at float64, node, client, key string, deleted bool) *tb {
	if deleted {
		return b.cmd(at, node, client, "(integer) 1", trace.KeyDeleted, "DEL", key)
	}
	return b.cmd(at, node, client, "(integer) 0", "", "DEL", key)
}

func (b *tb) expire(at float64, node, key string) *tb {
	return b.add(at, trace.Expire(node, key))
}

func (b *tb) pause(at float64, process string, d float64) *tb {
	b.add(at, trace.Pause(process, trace.FaultGCPause, dur(d)))
	return b.add(at+d, trace.Resume(process))
}

// op records an operation; ret < 0 leaves it open.
func (b *tb) op(client, kind, key, result string, call, ret float64) *tb {
	return b.opv(client, kind, key, "", result, call, ret)
}

func (b *tb) opv(client, kind, key, value, result string, call, ret float64) *tb {
	r := int64(-1)
	if ret >= 0 {
		r = sec(ret)
	}
	b.ops = append(b.ops, trace.Op{Client: client, Process: model.ProcessOf(client), Kind: kind, Key: key,
		Value: value, Result: result, Call: sec(call), Return: r})
	return b
}

// section records a whole critical section on one node: acquire with
// SET NX, release with DEL.
func (b *tb) section(client, node, key string, from, to float64) *tb {
	b.op(client, model.OpAcquire, key, model.ResOK, from, from+0.002)
	b.setnx(from+0.001, node, client, key, "10")
	b.op(client, model.OpRelease, key, model.ResOK, to, to+0.002)
	return b.del(to+0.001, node, client, key, true)
}

func (b *tb) trace() *trace.Trace {
	tr := &trace.Trace{Events: append([]trace.Event(nil), b.events...), Ops: append([]trace.Op(nil), b.ops...),
		Scripts: map[string]string{}}
	sort.SliceStable(tr.Events, func(i, j int) bool { return tr.Events[i].T < tr.Events[j].T })
	sort.SliceStable(tr.Ops, func(i, j int) bool { return tr.Ops[i].Call < tr.Ops[j].Call })
	for i := range tr.Ops {
		tr.Ops[i].ID = i
	}
	tr.Stats.Events = len(tr.Events)
	return tr
}
