package sim

import (
	"errors"
	"strings"
)

// Master is the node name that resolves, per process, to the node the
// process currently believes is the master.
const Master = "master"

// ErrTimeout is returned when a command's reply did not arrive in time.
var ErrTimeout = errors.New("command timed out")

// ErrUnknownParty is returned for a command to a node or service that does
// not exist.
var ErrUnknownParty = errors.New("unknown node or service")

// Call sends one Redis command to node and waits for its reply. The reply
// is a Reply even for Redis errors; the error is for transport failures.
func (t *Thread) Call(node string, args ...string) (Reply, error) {
	if node == Master {
		node = t.p.master()
	}
	n := t.w.nodes[node]
	if n == nil {
		return Reply{}, ErrUnknownParty
	}
	what := strings.ToUpper(args[0])
	return t.roundTrip(node, what, func(reply func(any)) {
		reply(n.exec(t, args))
	})
}

// Request sends a request to a service (a database, a storage) and waits
// for its answer.
func (t *Thread) Request(service string, args ...string) (string, error) {
	s := t.w.services[service]
	if s == nil {
		return "", ErrUnknownParty
	}
	v, err := t.roundTrip(service, args[0], func(reply func(any)) {
		reply(s.handle(t, args))
	})
	if err != nil {
		return "", err
	}
	return v.Str, nil
}

// roundTrip sends a request to party, runs serve on arrival, carries its
// answer back and blocks until the answer or the command timeout.
func (t *Thread) roundTrip(party, what string, serve func(reply func(any))) (Reply, error) {
	w := t.w
	tok := t.waitTok
	from := t.p.Name
	w.net.send(from, party, nil, what, func() {
		serve(func(v any) {
			w.net.send(party, from, t.p, "reply to "+what, func() { w.wake(t, tok, v) })
		})
	})
	if to := w.cfg.CommandTimeout; to > 0 {
		w.schedule(w.now+to, t.p, func() {
			if t.waitTok == tok && !t.done {
				w.rec.event(Event{Kind: EvTimeout, Party: from, Client: t.Client(), Detail: what + " to " + party})
				w.wake(t, tok, ErrTimeout)
			}
		})
	}
	switch v := t.park().(type) {
	case error:
		return Reply{}, v
	case Reply:
		return v, nil
	case string:
		return Reply{Kind: '$', Str: v}, nil
	}
	return Reply{}, errors.New("sim: bad wake value")
}
