package bridge

import (
	"io"
	"strings"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// link is the world's side of one connection of a bridged thread to a
// node or to the sentinel. It keeps the connection's order, as TCP does:
// one message in flight at a time, commands written meanwhile go
// together in the next one. A message the network loses stalls the
// connection until the client gives up on it (its read timeout).
type link struct {
	b       *Bridge
	th      *thread
	party   string // a node, or sim.Sentinel
	id      int    // the node's connection number (negative)
	name    string // the ordering key of the connection's inputs
	c       *conn
	pending [][]string
	busy    bool
	gone    bool
	subs    []string // sentinel channels subscribed to
	epoch   int      // the node's crashes before it accepted the connection
}

// send queues commands the client wrote.
func (l *link) send(cmds [][]string) {
	if l.gone {
		return
	}
	l.pending = append(l.pending, cmds...)
	if !l.busy {
		l.flush()
	}
}

// flush sends the pending commands as one message, from the process (so a
// paused process sends nothing until it resumes).
func (l *link) flush() {
	batch := l.pending
	l.pending = nil
	l.busy = true
	what, reply := l.b.labels(batch)
	w, p := l.b.w, l.th.proc.p
	p.Post(func() {
		w.Send(p.Name, l.party, nil, what, func() {
			if l.refused(what) {
				return
			}
			l.serve(batch, func(out []byte) {
				w.Send(l.party, p.Name, p, reply, func() { l.arrive(out) })
			})
		})
	})
}

// labels names a message of commands in the trace ("SET", "GET+DEL")
// and its reply ("reply to SET"). A one-command message's names are
// kept per command name for the run: nearly every message holds one
// command, of a handful of names.
func (b *Bridge) labels(batch [][]string) (what, reply string) {
	if len(batch) == 1 {
		if n, ok := b.names[batch[0][0]]; ok {
			return n.what, n.reply
		}
	}
	names := make([]string, len(batch))
	for i, c := range batch {
		names[i] = strings.ToUpper(c[0])
	}
	what = strings.Join(names, "+")
	reply = "reply to " + what
	if len(batch) == 1 {
		b.names[batch[0][0]] = label{what, reply}
	}
	return what, reply
}

// label is what labels returns for a one-command message.
type label struct{ what, reply string }

// refused answers a message that reaches a node whose server is not the
// one that accepted the connection (down, or restarted since): its host
// knows no such connection and answers with a reset, which travels back
// like a reply; the client's next read fails with "connection reset by
// peer" unless the close the crash sent got there first.
func (l *link) refused(what string) bool {
	n := l.b.w.Node(l.party)
	if n == nil || (!n.Down() && l.b.crashes[l.party] == l.epoch) {
		return false
	}
	why := "restarted, reset"
	if n.Down() {
		why = "down, refused"
	}
	w, p := l.b.w, l.th.proc.p
	w.Record(trace.Drop(p.Name, "to "+l.party+" ("+why+"): "+what).WithFault(n.CrashedBy()))
	w.Send(l.party, p.Name, p, "reset", func() {
		l.busy = false
		if !l.gone {
			l.drop()
			l.c.closeByPeer(errReset)
		}
	})
	return true
}

// closed sends the close of a crashed node's host (FIN) to the client:
// once it arrives, reads return EOF.
func (l *link) closed() {
	w, p := l.b.w, l.th.proc.p
	w.Send(l.party, p.Name, p, "close", func() {
		if !l.gone {
			l.c.closeByPeer(io.EOF)
		}
	})
}

// serve runs batch at the connection's party on arrival; done gets the
// replies, in order, once the last one is known.
func (l *link) serve(batch [][]string, done func([]byte)) {
	if l.party == sim.Sentinel {
		done(l.b.sentinel.serve(l, batch))
		return
	}
	n := l.b.w.Node(l.party)
	if len(batch) == 1 { // (nearly every message)
		n.Serve(l.th.proc.p, l.id, l.th.client, batch[0], func(r sim.Reply) { done(appendReply(nil, r)) })
		return
	}
	var out []byte
	var run func(i int)
	run = func(i int) {
		if i == len(batch) {
			done(out)
			return
		}
		n.Serve(l.th.proc.p, l.id, l.th.client, batch[i], func(r sim.Reply) {
			out = appendReply(out, r)
			run(i + 1)
		})
	}
	run(0)
}

// arrive hands replies to the client and sends what queued meanwhile.
func (l *link) arrive(out []byte) {
	l.busy = false
	if l.gone {
		return
	}
	l.c.feed(out)
	if len(l.pending) > 0 {
		l.flush()
	}
}

// push sends out to the client unasked (a pub/sub message).
func (l *link) push(from, what string, out []byte) {
	p := l.th.proc.p
	l.b.w.Send(from, p.Name, p, what, func() {
		if !l.gone {
			l.c.feed(out)
		}
	})
}

// drop forgets the connection: the client closed it.
func (l *link) drop() {
	l.gone = true
	l.pending = nil
	l.subs = nil
}
