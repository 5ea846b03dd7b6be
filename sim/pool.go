package sim

import (
	"bufio"
	"io"
	"sync"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"

	"github.com/locksim/locksim/sim/luafast"
)

// Pool keeps what finished runs leave for later ones: Redis stores (a
// miniredis costs more to build than many of a run's commands), idle
// thread coroutines (a goroutine whose stack has already grown) and the
// arrays a world's allocator cut its calls, events and threads from. Its
// owner, an explorer say, passes it to each run in Config.Pool and
// closes it when done; runs on several goroutines may share it. The
// coroutines of a pool must never be resumed inside a testing/synctest
// bubble if they were made outside it, nor the other way round: a pool
// serves runs of one kind only.
type Pool struct {
	mu     sync.Mutex
	stores []*store
	coros  []*coro
	allocs []*allocator
	lua    luafast.Cache // compiled scripts and clean Lua states
}

// take removes the last of the pool's idle things in list and returns
// it, or nil.
func take[T any](p *Pool, list *[]*T) *T {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(*list)
	if n == 0 {
		return nil
	}
	v := (*list)[n-1]
	*list = (*list)[:n-1]
	return v
}

// takeAllocator returns one of p's allocators, reset, or a new one.
func (p *Pool) takeAllocator() *allocator {
	if p != nil {
		if a := take(p, &p.allocs); a != nil {
			a.reset()
			return a
		}
	}
	return &allocator{}
}

// putAllocator keeps a in p; its kept arrays are bounded (chunkKept).
func (p *Pool) putAllocator(a *allocator) {
	p.mu.Lock()
	p.allocs = append(p.allocs, a)
	p.mu.Unlock()
}

// luaCache is the Lua cache of the pool's runs; nil without a pool.
func (p *Pool) luaCache() *luafast.Cache {
	if p == nil {
		return nil
	}
	return &p.lua
}

// maxPooledCoros bounds the idle coroutines a pool keeps; a run that
// ends with more ends the rest.
const maxPooledCoros = 1024

// Close ends the pooled coroutines' goroutines and drops the stores.
// Runs that still use the pool give their coroutines back as if it had
// none.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.coros {
		c.stop()
	}
	p.stores, p.coros, p.allocs = nil, nil, nil
}

// store is a miniredis with the buffered writers of the node that uses
// it (each 4 KB), which a node points at its own buffers.
type store struct {
	m       *miniredis.Miniredis
	node    *bufio.Writer // the node's client connections
	scripts *bufio.Writer // the script upkeep's connection
	upkeep  *server.Peer  // the connection that empties it, answers discarded
}

// newStore returns an empty store: one of p's when p has one. A store
// comes back empty (no keys in any database, no scripts, no pre-hook);
// AddNode then seeds it and sets its clock, so a node on a reused store
// answers exactly as on a new one.
func (p *Pool) newStore() *store {
	if p != nil {
		if s := take(p, &p.stores); s != nil {
			return s
		}
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

// putStore empties s and keeps it in p.
func (p *Pool) putStore(s *store) {
	srv := s.m.Server()
	srv.SetPreHook(nil)
	srv.Dispatch(s.upkeep, []string{"SCRIPT", "FLUSH"})
	s.m.FlushAll()
	s.node.Reset(io.Discard)
	s.scripts.Reset(io.Discard)
	p.mu.Lock()
	p.stores = append(p.stores, s)
	p.mu.Unlock()
}

// takeCoro returns one of p's idle coroutines, or nil.
func (p *Pool) takeCoro() *coro {
	if p == nil {
		return nil
	}
	return take(p, &p.coros)
}

// putCoros keeps idle coroutines in p, up to maxPooledCoros, and ends
// the others (all of them when p is nil).
func (p *Pool) putCoros(idle []*coro) {
	if p != nil {
		p.mu.Lock()
		keep := min(len(idle), maxPooledCoros-len(p.coros))
		p.coros = append(p.coros, idle[:keep]...)
		idle = idle[keep:]
		p.mu.Unlock()
	}
	for _, c := range idle {
		c.stop()
	}
}

// Release hands the world's Redis stores and allocator to its pool, if
// it has one. The world and its nodes must not be used afterwards; the
// trace Run returned stays valid (it holds nothing the allocator reuses).
func (w *World) Release() {
	for _, n := range w.nodeList() {
		if n.store != nil && w.cfg.Pool != nil {
			w.cfg.Pool.putStore(n.store)
		}
		n.store, n.m, n.srv = nil, nil, nil
	}
	if w.cfg.Pool != nil && w.alloc != nil {
		w.cfg.Pool.putAllocator(w.alloc)
	}
	w.alloc = nil
}
