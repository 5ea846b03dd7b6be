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

// newStore returns an empty miniredis, reused when one is free.
func newStore() *miniredis.Miniredis {
	if m, ok := stores.Get().(*miniredis.Miniredis); ok {
		return m
	}
	m := miniredis.NewMiniRedis()
	c, err := m.Dial() // starts the server without a listener
	if err != nil {
		panic(err) // a pipe never fails to open
	}
	c.Close()
	return m
}

// putStore empties m and hands it to the next run.
func putStore(m *miniredis.Miniredis) {
	srv := m.Server()
	srv.SetPreHook(nil)
	p := server.NewPeer(bufio.NewWriter(io.Discard))
	srv.Dispatch(p, []string{"SCRIPT", "FLUSH"})
	m.FlushAll()
	stores.Put(m)
}

// Release hands the world's Redis stores back for later runs. The world
// and its nodes must not be used afterwards; the trace Run returned stays
// valid.
func (w *World) Release() {
	for _, n := range w.nodeList() {
		if n.m != nil {
			putStore(n.m)
			n.m, n.srv = nil, nil
		}
	}
}
