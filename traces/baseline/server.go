package baseline

import (
	"github.com/locksim/locksim/sim/redisproc"
)

// ErrNoRedisServer is returned by StartServer when redis-server is not on
// the PATH.
var ErrNoRedisServer = redisproc.ErrNotFound

// Server is a redis-server child process on a free loopback port, with no
// persistence.
type Server = redisproc.Server

// StartServer starts redis-server with MaxWorkers databases (one per
// parallel trial) and waits until it answers. Start it from a goroutine
// locked to its thread (TestMain does runtime.LockOSThread): on Linux the
// server dies with that thread if the caller dies without Close.
func StartServer() (*Server, error) { return redisproc.Start(MaxWorkers) }
