package sim

import (
	"strconv"

	"github.com/alicebob/miniredis/v2/server"
	"github.com/locksim/locksim/sim/trace"
)

// Subscription is one process's subscription to a channel on a node. Its
// handler runs in the process (held while paused, never after a crash) when
// a published message arrives; it must not block: it typically releases a
// Sem that a waiting thread blocks on, as Redisson's listener does.
type Subscription struct {
	node    *Node
	p       *Process
	Channel string
	handler Receiver
	active  bool
	what    string // "message on Channel", once a message was sent
}

// A Receiver takes the messages of a subscription (see Subscription).
type Receiver interface{ Receive(msg string) }

type receiverFunc func(msg string)

func (f receiverFunc) Receive(msg string) { f(msg) }

// Subscribe sends SUBSCRIBE channel to node and waits for the
// confirmation. Messages published after the node registered it reach
// handler through the network, so a partition loses them.
func (t *Thread) Subscribe(node, channel string, handler func(msg string)) (*Subscription, error) {
	return t.SubscribeTo(node, channel, receiverFunc(handler))
}

// SubscribeTo is Subscribe with a Receiver for the messages.
func (t *Thread) SubscribeTo(node, channel string, handler Receiver) (*Subscription, error) {
	if node == Master {
		node = t.p.master()
	}
	n := t.w.nodes[node]
	if n == nil {
		return nil, ErrUnknownParty
	}
	s := t.w.alloc.subscription()
	s.node, s.p, s.Channel, s.handler = n, t.p, channel, handler
	c := t.w.alloc.rpc()
	c.cfg, c.to, c.what, c.sub = t.p.Client, node, "SUBSCRIBE", s
	if _, err := t.roundTrip(c); err != nil {
		return nil, err
	}
	return s, nil
}

// register is the SUBSCRIBE of s arriving at its node (attempt a).
func (s *Subscription) register(a *rpcAttempt) {
	t := a.c.t
	n := s.node
	if n.down {
		return
	}
	s.active = true
	subs := n.subs[s.Channel]
	if subs == nil { // a channel's first subscriber: most have only one or two
		subs = n.w.alloc.subscriberList()
	}
	n.subs[s.Channel] = append(subs, s)
	n.w.rec.event(trace.Command(n.Name, t.Client(), s.Channel, n.w.traceArgs([]string{"SUBSCRIBE", s.Channel}, false), "subscribed", ""))
	a.answer(Reply{Kind: '+', Str: "OK"})
}

// receive runs the handler on a published message, unless the process
// stopped listening meanwhile.
func (s *Subscription) receive(msg string) {
	if !s.active {
		return
	}
	s.node.w.rec.event(trace.Deliver(s.p.Name, s.Channel, msg))
	s.handler.Receive(msg)
}

// Unsubscribe removes the subscription at once (the client stops
// listening; in-flight messages are ignored).
func (s *Subscription) Unsubscribe() {
	if !s.active {
		return
	}
	s.active = false
	subs := s.node.subs[s.Channel]
	for i, x := range subs {
		if x == s {
			// In place: the next subscriber to the channel reuses the room.
			copy(subs[i:], subs[i+1:])
			subs[len(subs)-1] = nil
			s.node.subs[s.Channel] = subs[:len(subs)-1]
			break
		}
	}
}

// publish delivers msg to every subscriber of channel and returns how
// many there were, as PUBLISH does.
func (n *Node) publish(channel, msg string) int {
	subs := n.subs[channel]
	n.w.rec.event(trace.Publish(n.Name, channel, n.publishText(msg, len(subs))))
	for _, s := range subs {
		e := n.w.alloc.event()
		e.proc, e.do, e.ref, e.text = s.p, doPublished, s, msg
		if s.what == "" {
			s.what = n.w.alloc.keepText(append(append(n.w.alloc.textRoom(11+len(channel)), "message on "...), channel...))
		}
		n.w.net.post(n.Name, s.p.Name, e, s.what)
	}
	return len(subs)
}

// publishText is the trace's text of msg published to subs subscribers.
func (n *Node) publishText(msg string, subs int) string {
	b := append(n.w.alloc.textRoom(len(msg)+36), msg...)
	b = strconv.AppendInt(append(b, " to "...), int64(subs), 10)
	return n.w.alloc.keepText(append(b, " subscribers"...))
}

// preHook intercepts the commands the node serves itself: PUBLISH (also
// from inside Lua), never handed to miniredis, whose pub/sub blocks on Go
// subscribers and delivers in random order; and the blocking or
// connection-state commands the sim does not support.
func (n *Node) preHook(c *server.Peer, cmd string, args ...string) bool {
	info := n.cmds.lookup(cmd)
	if n.snap.pending && info.flags&(cmdScript|cmdWrite) == cmdWrite { // the running script's first write
		n.snap.taken, n.snap.pending = n.storedAt(n.snap.keys), false
	}
	switch {
	case info.flags&(cmdScript|cmdScriptCache) != 0:
		return n.scriptCommand(c, info, cmd, args, nil)
	case info.flags&cmdRefused != 0:
		c.WriteError("ERR locksim: " + cmd + " is not supported by the simulated node")
		return true
	case info.flags&cmdRandom != 0: // miniredis's only draws (RANDOMKEY is refused)
		n.seedRandom()
	case info.flags&cmdSwapsDB != 0:
		n.swapped = true
	case cmd == "PUBLISH":
		if len(args) != 2 {
			c.WriteError("ERR wrong number of arguments for 'publish' command")
			return true
		}
		if t := n.tx[c]; t != nil {
			t.pubs = append(t.pubs, queuedPub{t.n, args[0], args[1]})
			return false // miniredis queues it and answers QUEUED
		}
		c.WriteInt(n.publish(args[0], args[1]))
		return true
	}
	return false
}
