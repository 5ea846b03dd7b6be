package fidelity

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/redisproc"
)

// realRedis is the real redis-server the whole package compares against,
// started once by TestMain; nil when it could not be started.
var realRedis *redisServer

// skipReason says why realRedis is nil; startFailed is set when the
// binary is there but would not start, which fails the suite instead.
var (
	skipReason  string
	startFailed bool
)

func TestMain(m *testing.M) {
	flag.Parse()
	rapidDefaults()
	// redis-server dies with the thread that started it (Pdeathsig):
	// keep this goroutine on its thread.
	runtime.LockOSThread()
	s, err := startRedis()
	if err != nil {
		skipReason = err.Error()
		startFailed = !errors.Is(err, redisproc.ErrNotFound)
	} else {
		realRedis = s
	}
	code := m.Run()
	if realRedis != nil {
		realRedis.stop()
	}
	os.Exit(code)
}

// needRedis returns the shared redis-server, or skips t naming what is
// missing.
func needRedis(t testing.TB) *redisServer {
	t.Helper()
	if startFailed {
		t.Fatalf("fidelity suite: %s", skipReason)
	}
	if realRedis == nil {
		t.Skipf("fidelity suite skipped: %s", skipReason)
	}
	return realRedis
}

// redisServer is the shared redis-server, with the names the suite uses.
type redisServer struct{ *redisproc.Server }

func (s *redisServer) stop()            { s.Close() }
func (s *redisServer) describe() string { return s.String() }

// startRedis starts redis-server on a free loopback port, with no
// persistence and one database, and waits until it answers.
func startRedis() (*redisServer, error) {
	s, err := redisproc.Start(1)
	if err != nil {
		return nil, err
	}
	return &redisServer{s}, nil
}

// client is a minimal RESP2 client over one TCP connection. Each client
// has its own WATCH/MULTI state on the server.
type client struct {
	conn net.Conn
	r    *bufio.Reader
	w    *bufio.Writer
}

func dial(addr string) (*client, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	return &client{conn: c, r: bufio.NewReader(c), w: bufio.NewWriter(c)}, nil
}

func (c *client) close() { c.conn.Close() }

// do sends one command as a RESP array of bulk strings and reads the reply.
func (c *client) do(args ...string) (sim.Reply, error) {
	fmt.Fprintf(c.w, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(c.w, "$%d\r\n%s\r\n", len(a), a)
	}
	if err := c.w.Flush(); err != nil {
		return sim.Reply{}, err
	}
	c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	return readReply(c.r)
}

var errProtocol = errors.New("malformed RESP from redis-server")

// readReply reads one RESP2 reply into the sim's Reply type.
func readReply(r *bufio.Reader) (sim.Reply, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return sim.Reply{}, err
	}
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return sim.Reply{}, errProtocol
	}
	kind, body := line[0], line[1:len(line)-2]
	switch kind {
	case '+', '-':
		return sim.Reply{Kind: kind, Str: body}, nil
	case ':':
		n, err := strconv.ParseInt(body, 10, 64)
		if err != nil {
			return sim.Reply{}, errProtocol
		}
		return sim.Reply{Kind: ':', Int: n}, nil
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil {
			return sim.Reply{}, errProtocol
		}
		if n < 0 {
			return sim.Reply{}, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return sim.Reply{}, err
		}
		return sim.Reply{Kind: '$', Str: string(buf[:n])}, nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil {
			return sim.Reply{}, errProtocol
		}
		if n < 0 {
			return sim.Reply{}, nil
		}
		arr := make([]sim.Reply, n)
		for i := range arr {
			if arr[i], err = readReply(r); err != nil {
				return sim.Reply{}, err
			}
		}
		return sim.Reply{Kind: '*', Array: arr}, nil
	}
	return sim.Reply{}, errProtocol
}
