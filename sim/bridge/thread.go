package bridge

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/sim"
)

// Clients are the go-redis clients of one bridged thread.
type Clients struct {
	// Client is the thread's client (Single, Sentinel).
	Client redis.UniversalClient
	// Pool holds one client per node, in Topology.Nodes order (Pool).
	Pool []redis.UniversalClient
}

// proc is the bridge's state of one process.
type proc struct {
	p       *sim.Process
	ctx     context.Context
	cancel  context.CancelFunc
	links   []*link
	clients []redis.UniversalClient
}

// thread is the bridge's state of one sim thread that calls into Go code.
type thread struct {
	b       *Bridge
	proc    *proc
	client  string // the thread's identity in the trace
	src     string // the ordering key of its calls' returns
	clients *Clients
	calls   uint64
	dials   map[string]uint64 // per address; under b.mu
	// work hands calls to the thread's worker goroutine, which runs
	// them one at a time until the run ends (nil before the first call,
	// and once the worker is gone); idle says that the worker's last
	// call has returned. Both belong to the world's goroutine.
	work chan<- func(id int64, worker bool)
	idle bool
}

// result is what a call's goroutine returns to its thread.
type result struct {
	err   error
	panic any
	stack []byte
}

// Call runs fn on the thread's worker goroutine with the thread's
// clients and blocks the thread until fn returns: ordinary Go code in
// the sim's virtual time. Its return reaches the thread as an event of
// its process (held while the process is paused). ctx is cancelled when
// the process crashes and when the run ends: fn must return then. A
// panic in fn panics the thread (the run fails with sim.ErrPanic).
func (b *Bridge) Call(t *sim.Thread, fn func(ctx context.Context, c *Clients) error) error {
	th := b.thread(t)
	v := t.Await(func(resume func(any)) {
		th.calls++
		seq := th.calls
		b.dirty = true
		th.start(func(id int64, worker bool) {
			b.started(id, th, seq)
			r, returned := result{}, false
			defer func() {
				if p := recover(); p != nil {
					r, returned = result{panic: p, stack: debug.Stack()}, true
				}
				b.push(th.src, seq, func() {
					if worker {
						th.workerReturned(returned)
					}
					resume(r)
				})
				b.returned(id)
			}()
			r.err = fn(th.proc.ctx, th.clients)
			returned = true
		})
	})
	r := v.(result)
	if r.panic != nil {
		panic(fmt.Sprintf("%v\n%s", r.panic, r.stack))
	}
	return r.err
}

// thread returns t's state, creating its clients on first use.
func (b *Bridge) thread(t *sim.Thread) *thread {
	if th := b.threads[t]; th != nil {
		return th
	}
	th := &thread{b: b, proc: b.proc(t.Process()), client: t.Client(), src: "call " + t.Client(), dials: map[string]uint64{}}
	th.clients = b.newClients(th)
	b.threads[t] = th
	return th
}

// start runs call on the thread's worker goroutine, started at the first
// call: one goroutine per thread rather than one per call spares every
// call a new goroutine whose stack grows, copy after copy, to the depth
// of go-redis's call path. A call started while the worker still runs an
// earlier one (whose result the thread no longer waits for: its process
// crashed) gets a goroutine of its own.
func (th *thread) start(call func(id int64, worker bool)) {
	switch {
	case th.work == nil:
		work := make(chan func(int64, bool), 1)
		th.work = work
		go worker(work)
	case !th.idle:
		go func() { call(goid(), false) }()
		return
	}
	th.idle = false
	th.work <- call
}

// worker runs a thread's calls until the run ends (its channel closes).
func worker(work <-chan func(id int64, worker bool)) {
	id := goid()
	for call := range work {
		call(id, true)
	}
}

// workerReturned records that the worker's call returned (the world
// got its result): the worker waits for the next one, unless the call
// ended its goroutine (runtime.Goexit).
func (th *thread) workerReturned(returned bool) {
	if returned {
		th.idle = true
		return
	}
	th.work = nil
}

// stop lets the thread's worker goroutine return once its call, if
// any, has.
func (th *thread) stop() {
	if th.work != nil {
		close(th.work)
		th.work = nil
	}
}

// proc returns p's state; a crash cancels its calls and hangs up its
// connections.
func (b *Bridge) proc(p *sim.Process) *proc {
	if pr := b.byProc[p]; pr != nil {
		return pr
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr := &proc{p: p, ctx: ctx, cancel: cancel}
	b.byProc[p] = pr
	b.procs = append(b.procs, pr)
	p.OwnDiscovery = b.topo.Kind == Sentinel
	p.OnCrash(func() { b.hangUp(pr) })
	return pr
}

// hangUp cancels the process's calls and closes its connections.
func (b *Bridge) hangUp(pr *proc) {
	pr.cancel()
	for _, l := range pr.links {
		l.drop()
		l.c.hangUp()
	}
	pr.links = nil
	b.dirty = true
}

// close ends the run for outside code: every process hangs up and its
// clients close, so that the bubble's goroutines can return.
func (b *Bridge) close() {
	select {
	case <-b.done:
		return
	default:
	}
	close(b.done)
	for _, pr := range b.procs {
		b.hangUp(pr)
		for _, c := range pr.clients {
			c.Close()
		}
	}
	b.awaitCalls()
	for _, th := range b.threads {
		th.stop()
	}
}
