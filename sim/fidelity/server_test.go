package fidelity

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
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
		startFailed = !errors.Is(err, errNoBinary)
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

// redisServer is a redis-server child process on a loopback port.
type redisServer struct {
	cmd     *exec.Cmd
	addr    string
	path    string
	version string
	log     *bytes.Buffer
	done    chan struct{}
}

var errNoBinary = errors.New("redis-server not found in PATH (install it: apt-get install -y redis-server)")

// startRedis starts redis-server on a free loopback port, with no
// persistence, and waits until it answers PING.
func startRedis() (*redisServer, error) {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, errNoBinary
	}
	var last error
	for attempt := 0; attempt < 5; attempt++ {
		s, err := startRedisOnce(path)
		if err == nil {
			return s, nil
		}
		last = err // most likely the port was taken between probe and start
	}
	return nil, fmt.Errorf("redis-server (%s) did not start: %v", path, last)
}

func startRedisOnce(path string) (*redisServer, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "locksim-fidelity-")
	if err != nil {
		return nil, err
	}
	s := &redisServer{
		path: path,
		addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		log:  &bytes.Buffer{},
		done: make(chan struct{}),
	}
	s.cmd = exec.Command(path,
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
		"--daemonize", "no",
		"--databases", "1",
	)
	s.cmd.Stdout = s.log
	s.cmd.Stderr = s.log
	s.cmd.SysProcAttr = childAttr()
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	go func() {
		s.cmd.Wait()
		os.RemoveAll(dir)
		close(s.done)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := dial(s.addr)
		if err == nil {
			r, err := c.do("INFO", "server")
			c.close()
			if err == nil && r.Kind == '$' {
				s.version = infoField(r.Str, "redis_version")
				return s, nil
			}
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("exited: %s", strings.TrimSpace(s.log.String()))
		default:
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("no answer on %s: %v", s.addr, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop kills the server and waits for it to exit.
func (s *redisServer) stop() {
	s.cmd.Process.Kill()
	<-s.done
}

// describe names the server for test logs.
func (s *redisServer) describe() string {
	return fmt.Sprintf("redis-server %s (%s, %s)", s.version, filepath.Clean(s.path), s.addr)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// infoField reads one "name:value" line of an INFO reply.
func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v
		}
	}
	return "unknown"
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
