package bridge

import (
	"context"
	"errors"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// DialTimeout bounds a connection attempt, as go-redis's DialTimeout
// default does (Topology.Options.DialTimeout, when set, instead): a node that is cut off (partition, blackhole) never
// answers; a node that is down refuses at once.
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
		limit := DialTimeout
		if o := b.topo.Options; o != nil && o.DialTimeout > 0 {
			limit = o.DialTimeout
		}
		t := time.NewTimer(limit)
		defer t.Stop()
		select {
		case c := <-res:
			if c == nil {
				return nil, &net.OpError{Op: "dial", Net: network, Addr: b.tcpAddr(party),
					Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
			}
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

func (b *Bridge) tcpAddr(party string) *net.TCPAddr {
	a, _ := net.ResolveTCPAddr("tcp", b.addr[party])
	return a
}

// connect opens a connection of th to party: the handshake crosses the
// network both ways. The host of a down node refuses it (res gets nil
// after the refusal's trip back), as a host with no listening socket
// answers a SYN with a reset.
func (b *Bridge) connect(th *thread, party string, res chan<- *conn) {
	b.nextID++
	l := &link{b: b, th: th, party: party, id: -b.nextID}
	l.name = th.client + ">" + party + "#" + strconv.Itoa(b.nextID)
	local := &net.TCPAddr{IP: net.IPv4(10, 0, 2, 1), Port: 40000 + b.nextID}
	l.c = newConn(b, l, local, b.tcpAddr(party))
	w, p := b.w, th.proc.p
	p.Post(func() {
		w.Send(p.Name, party, nil, "connect", func() {
			if n := w.Node(party); n != nil && n.Down() {
				w.Record(trace.Drop(p.Name, "to "+party+" (down, refused): connect").WithFault(n.CrashedBy()))
				w.Send(party, p.Name, p, "refused: connect", func() {
					res <- nil
					b.dirty = true
				})
				return
			}
			l.epoch = b.crashes[party]
			w.Send(party, p.Name, p, "accept", func() {
				th.proc.links = append(th.proc.links, l)
				res <- l.c
				b.dirty = true
			})
		})
	})
}
