// Package redisproc starts a real redis-server on a free loopback port,
// for the suites that compare against one (sim/fidelity, traces/baseline).
package redisproc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrNotFound is returned by Start when redis-server is not on the PATH.
var ErrNotFound = errors.New("redis-server not found in PATH (install it: apt-get install -y redis-server)")

// Server is a redis-server child process with no persistence (--save ""
// --appendonly no) on a loopback port.
type Server struct {
	Addr    string
	Path    string
	Version string

	cmd  *exec.Cmd
	log  *lockedBuffer
	done chan struct{}
	once sync.Once
}

// Start starts redis-server with the given number of databases and waits
// until it answers. On Linux the server dies with the thread that started
// it if the caller dies without calling Close: start it from a goroutine
// locked to its thread (runtime.LockOSThread in TestMain).
func Start(databases int) (*Server, error) {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, ErrNotFound
	}
	var last error
	for range 5 {
		s, err := startOnce(path, databases)
		if err == nil {
			return s, nil
		}
		last = err // most likely the port was taken between probe and start
	}
	return nil, fmt.Errorf("redis-server (%s) did not start: %v", path, last)
}

func startOnce(path string, databases int) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "locksim-redis-")
	if err != nil {
		return nil, err
	}
	s := &Server{
		Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		Path: path,
		log:  &lockedBuffer{},
		done: make(chan struct{}),
	}
	s.cmd = exec.Command(path,
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
		"--daemonize", "no",
		"--databases", strconv.Itoa(max(databases, 1)),
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
		info, err := infoServer(s.Addr)
		if err == nil {
			s.Version = infoField(info, "redis_version")
			return s, nil
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("exited: %s", strings.TrimSpace(s.log.String()))
		default:
		}
		if time.Now().After(deadline) {
			s.Close()
			return nil, fmt.Errorf("no answer on %s: %v", s.Addr, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Close kills the server and waits for it to exit.
func (s *Server) Close() error {
	s.once.Do(func() { s.cmd.Process.Kill() })
	<-s.done
	return nil
}

// String names the server for logs.
func (s *Server) String() string {
	return fmt.Sprintf("redis-server %s (%s, %s)", s.Version, s.Path, s.Addr)
}

// infoServer sends INFO server on a fresh connection and returns the text.
func infoServer(addr string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n")); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	head, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(head, "$")))
	if err != nil || head[0] != '$' || n < 0 {
		return "", fmt.Errorf("unexpected INFO reply %q", head)
	}
	body := make([]byte, n+2)
	if _, err := io.ReadFull(r, body); err != nil {
		return "", err
	}
	return string(body[:n]), nil
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

// lockedBuffer collects the server's output; exec's copying goroutine
// writes it while a failed start may read it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
