package baseline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrNoRedisServer is returned by StartServer when redis-server is not on
// the PATH.
var ErrNoRedisServer = errors.New("redis-server not found in PATH (install it: apt-get install -y redis-server)")

// Server is a redis-server child process on a free loopback port, with no
// persistence (--save "" --appendonly no).
type Server struct {
	Addr    string
	Path    string
	Version string

	cmd  *exec.Cmd
	log  *lockedBuffer
	done chan struct{}
	once sync.Once
}

// StartServer starts redis-server on a free loopback port and waits until
// it answers PING. On Linux the server dies with the thread that started
// it if the caller dies without calling Close: start it from a goroutine
// locked to its thread (TestMain does runtime.LockOSThread).
func StartServer() (*Server, error) {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, ErrNoRedisServer
	}
	var last error
	for range 5 {
		s, err := startOnce(path)
		if err == nil {
			return s, nil
		}
		last = err // most likely the port was taken between probe and start
	}
	return nil, fmt.Errorf("redis-server (%s) did not start: %v", path, last)
}

func startOnce(path string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "locksim-baseline-")
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
		"--databases", strconv.Itoa(MaxWorkers),
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
	rdb := redis.NewClient(clientOptions(s.Addr, 0))
	defer rdb.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		info, err := rdb.Info(ctx, "server").Result()
		cancel()
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

// lockedBuffer collects the server's output; the process writes it from
// exec's copying goroutine while a failed start may read it.
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
