package bridge

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// conn is the client end of one simulated TCP connection, the net.Conn a
// go-redis client reads and writes. What the client writes is parsed into
// commands and handed to the world at the next quiescence point; replies
// arrive from the world. Every blocking wait is on a channel of the
// bubble, so a blocked reader is durably blocked and virtual time can
// pass.
type conn struct {
	b      *Bridge
	l      *link // world side; only the world's goroutine touches it
	local  net.Addr
	remote net.Addr

	mu       sync.Mutex
	in       []byte // replies received, not yet read
	out      []byte // bytes written, not yet a whole command
	seq      uint64 // inputs handed to the world
	deadline time.Time
	timer    *time.Timer   // wait's, between reads
	closed   bool          // closed by the client
	reset    bool          // closed by the world (process crash, end of run)
	peer     error         // closed by the node's host: io.EOF (FIN) or errReset
	ready    chan struct{} // cap 1: in grew, or the connection closed
	done     chan struct{} // closed when either side closes
	once     sync.Once
}

func newConn(b *Bridge, l *link, local, remote net.Addr) *conn {
	return &conn{b: b, l: l, local: local, remote: remote, ready: make(chan struct{}, 1), done: make(chan struct{})}
}

// Read returns replies as they arrive, or a timeout error once the read
// deadline passes on the bubble's clock.
func (c *conn) Read(p []byte) (int, error) {
	for {
		c.mu.Lock()
		if len(c.in) > 0 {
			n := copy(p, c.in)
			c.in = c.in[n:]
			c.mu.Unlock()
			return n, nil
		}
		closed, reset, peer, dl := c.closed, c.reset, c.peer, c.deadline
		c.mu.Unlock()
		switch {
		case closed:
			return 0, net.ErrClosed
		case reset:
			return 0, io.EOF
		case peer != nil:
			return 0, c.opError("read", peer)
		}
		if err := c.wait(dl); err != nil {
			return 0, err
		}
	}
}

// wait blocks until something arrives, the connection closes or the
// deadline dl passes.
func (c *conn) wait(dl time.Time) error {
	var timeout <-chan time.Time
	if !dl.IsZero() {
		d := time.Until(dl)
		if d <= 0 {
			return os.ErrDeadlineExceeded
		}
		t := c.takeTimer(d)
		defer c.putTimer(t)
		timeout = t.C
	}
	select {
	case <-c.ready:
	case <-c.done:
	case <-timeout:
		return os.ErrDeadlineExceeded
	}
	return nil
}

// takeTimer returns a timer set to fire after d: the connection's own,
// kept between reads (a read waits for nearly every reply), or a new one
// while another read waits with it.
func (c *conn) takeTimer(d time.Duration) *time.Timer {
	c.mu.Lock()
	t := c.timer
	c.timer = nil
	c.mu.Unlock()
	if t == nil {
		return time.NewTimer(d)
	}
	t.Reset(d)
	return t
}

// putTimer stops t and keeps it for the next read.
func (c *conn) putTimer(t *time.Timer) {
	t.Stop()
	c.mu.Lock()
	c.timer = t
	c.mu.Unlock()
}

// Write hands every whole command written so far to the world; it never
// blocks (the kernel's send buffer).
func (c *conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	if c.closed || c.reset {
		c.mu.Unlock()
		return 0, net.ErrClosed
	}
	switch c.peer {
	case nil:
	case io.EOF: // half-closed: the bytes go out and draw a reset, unread
		c.mu.Unlock()
		return len(p), nil
	default:
		c.mu.Unlock()
		return 0, c.opError("write", os.NewSyscallError("write", syscall.EPIPE))
	}
	c.out = append(c.out, p...)
	var cmds [][]string
	rest := c.out
	for len(rest) > 0 {
		args, n, err := parseCommand(rest)
		if err == errPartial {
			break
		}
		if err != nil {
			c.mu.Unlock()
			return 0, err
		}
		cmds = append(cmds, args)
		rest = rest[n:]
	}
	c.out = append(c.out[:0], rest...) // a partial command waits at the buffer's start
	seq := c.next(len(cmds) > 0)
	c.mu.Unlock()
	if len(cmds) > 0 {
		c.b.push(c.l.name, seq, func() { c.l.send(cmds) })
	}
	return len(p), nil
}

// next numbers the connection's next input (under mu).
func (c *conn) next(use bool) uint64 {
	if use {
		c.seq++
	}
	return c.seq
}

// Close closes the client end; the world forgets the connection.
func (c *conn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	seq := c.next(true)
	c.mu.Unlock()
	c.once.Do(func() { close(c.done) })
	c.b.push(c.l.name, seq, c.l.drop)
	return nil
}

// feed appends replies from the world (world's goroutine).
func (c *conn) feed(p []byte) {
	c.mu.Lock()
	c.in = append(c.in, p...)
	c.mu.Unlock()
	select {
	case c.ready <- struct{}{}:
	default:
	}
	c.b.dirty = true
}

// errReset is what a read returns after the host answered with a reset.
var errReset = os.NewSyscallError("read", syscall.ECONNRESET)

// closeByPeer records that the node's host closed the connection: err is
// io.EOF for its close, errReset for a reset (world's goroutine). A reset
// after a close changes nothing: the client reads the close first.
func (c *conn) closeByPeer(err error) {
	c.mu.Lock()
	if c.peer == nil {
		c.peer = err
	}
	c.mu.Unlock()
	select {
	case c.ready <- struct{}{}:
	default:
	}
	c.b.dirty = true
}

// opError wraps a socket error as the net package does; io.EOF stays bare,
// as a TCP connection's read returns it.
func (c *conn) opError(op string, err error) error {
	if err == io.EOF {
		return err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.local, Addr: c.remote, Err: err}
}

// hangUp closes the connection from the world's side: the client reads
// EOF (world's goroutine).
func (c *conn) hangUp() {
	c.mu.Lock()
	c.reset = true
	c.mu.Unlock()
	c.once.Do(func() { close(c.done) })
	c.b.dirty = true
}

func (c *conn) LocalAddr() net.Addr  { return c.local }
func (c *conn) RemoteAddr() net.Addr { return c.remote }

func (c *conn) SetDeadline(t time.Time) error {
	return c.SetReadDeadline(t)
}

func (c *conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	return nil
}

// SetWriteDeadline is accepted and ignored: writes never block.
func (c *conn) SetWriteDeadline(time.Time) error { return nil }
