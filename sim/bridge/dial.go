package bridge

import (
	"context"
	"errors"
	"net"
	"strconv"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// DialTimeout bounds a connection attempt, as go-redis's DialTimeout
// default does: a node that is down or cut off never answers.
const DialTimeout = 5 * time.Second

// dialer is the go-redis Dialer of th's clients: a connection is a round
// trip through the world's network to the node (or the sentinel).
func (b *Bridge) dialer(th *thread) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		party, ok := b.party[addr]
		if !ok {
			return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("no such address in the simulation: " + addr)}
		}
		b.mu.Lock()
		th.dials[addr]++
		seq := th.dials[addr]
		b.mu.Unlock()
		res := make(chan *conn, 1)
		b.push("dial "+th.client+" "+addr, seq, func() { b.connect(th, party, res) })
		t := time.NewTimer(DialTimeout)
		defer t.Stop()
		select {
		case c := <-res:
			return c, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-b.done:
			return nil, &net.OpError{Op: "dial", Net: network, Err: net.ErrClosed}
		case <-t.C:
			return nil, &net.OpError{Op: "dial", Net: network, Err: errTimeout{}}
		}
	}
}

// errTimeout is a dial that got no answer.
type errTimeout struct{}

func (errTimeout) Error() string   { return "i/o timeout" }
func (errTimeout) Timeout() bool   { return true }
func (errTimeout) Temporary() bool { return true }

// connect opens a connection of th to party: the handshake crosses the
// network both ways; a down node drops it.
func (b *Bridge) connect(th *thread, party string, res chan<- *conn) {
	b.nextID++
	l := &link{b: b, th: th, party: party, id: -b.nextID}
	l.name = th.client + ">" + party + "#" + strconv.Itoa(b.nextID)
	local := &net.TCPAddr{IP: net.IPv4(10, 0, 2, 1), Port: 40000 + b.nextID}
	remote, _ := net.ResolveTCPAddr("tcp", b.addr[party])
	l.c = newConn(b, l, local, remote)
	w, p := b.w, th.proc.p
	p.Post(func() {
		w.Send(p.Name, party, nil, "connect", func() {
			if n := w.Node(party); n != nil && n.Down() {
				w.Record(trace.Event{Kind: trace.EvDrop, Party: p.Name, Detail: "to " + party + " (down): connect"})
				return
			}
			w.Send(party, p.Name, p, "accept", func() {
				th.proc.links = append(th.proc.links, l)
				res <- l.c
				b.dirty = true
			})
		})
	})
}
