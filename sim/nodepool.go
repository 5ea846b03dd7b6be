package sim

import (
	"bufio"
	"io"
	"sync"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
)

// stores pools miniredis instances across runs: building one registers
// every command and starts its server, which costs more than many of a
// run's commands. A store comes back empty: no keys in any database, no
// scripts, no pre-hook; AddNode then seeds it and sets its clock, so a
// node on a reused store answers exactly as on a new one.
var stores sync.Pool

// store is a pooled miniredis with the buffered writers of the node that
// uses it (each 4 KB), which a node points at its own buffers.
type store struct {
	m       *miniredis.Miniredis
	node    *bufio.Writer // the node's client connections
	scripts *bufio.Writer // the script upkeep's connection
	upkeep  *server.Peer  // putStore's connection, answers discarded
}

// newStore returns an empty miniredis, reused when one is free.
func newStore() *store {
	if s, ok := stores.Get().(*store); ok {
		return s
	}
	m := miniredis.NewMiniRedis()
	c, err := m.Dial() // starts the server without a listener
	if err != nil {
		panic(err) // a pipe never fails to open
	}
	c.Close()
	return &store{m: m, node: bufio.NewWriter(io.Discard), scripts: bufio.NewWriter(io.Discard),
		upkeep: server.NewPeer(bufio.NewWriter(io.Discard))}
}

// putStore empties s and hands it to the next run.
func putStore(s *store) {
	srv := s.m.Server()
	srv.SetPreHook(nil)
	srv.Dispatch(s.upkeep, []string{"SCRIPT", "FLUSH"})
	s.m.FlushAll()
	s.node.Reset(io.Discard)
	s.scripts.Reset(io.Discard)
	stores.Put(s)
}

// Release hands the world's Redis stores back for later runs. The world
// and its nodes must not be used afterwards; the trace Run returned stays
// valid.
func (w *World) Release() {
	for _, n := range w.nodeList() {
		if n.store != nil {
			putStore(n.store)
			n.store, n.m, n.srv = nil, nil, nil
		}
	}
}
