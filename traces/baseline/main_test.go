package baseline

import (
	"flag"
	"os"
	"runtime"
	"testing"
)

// server is the redis-server the package's tests and benchmarks share,
// started once by TestMain; nil when it could not be started.
var server *Server

// skipReason says why server is nil.
var skipReason string

func TestMain(m *testing.M) {
	flag.Parse()
	// redis-server dies with the thread that started it (Pdeathsig):
	// keep this goroutine on its thread.
	runtime.LockOSThread()
	s, err := StartServer()
	if err != nil {
		skipReason = err.Error()
	} else {
		server = s
	}
	code := m.Run()
	if server != nil {
		server.Close()
	}
	os.Exit(code)
}

// needRedis returns the shared redis-server, or skips tb saying why.
func needRedis(tb testing.TB) *Server {
	tb.Helper()
	if server == nil {
		tb.Skipf("real-redis baseline skipped: %s", skipReason)
	}
	return server
}
