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
	clients *Clients
	calls   uint64
	dials   map[string]uint64 // per address; under b.mu
}

// result is what a call's goroutine returns to its thread.
type result struct {
	err   error
	panic any
	stack []byte
}

// Call runs fn on a new goroutine with the thread's clients and blocks
// the thread until fn returns: ordinary Go code in the sim's virtual
// time. Its return reaches the thread as an event of its process (held
// while the process is paused). ctx is cancelled when the process
// crashes and when the run ends: fn must return then. A panic in fn
// panics the thread (the run fails with sim.ErrPanic).
func (b *Bridge) Call(t *sim.Thread, fn func(ctx context.Context, c *Clients) error) error {
	th := b.thread(t)
	v := t.Await(func(resume func(any)) {
		th.calls++
		src, seq := "call "+th.client, th.calls
		b.dirty = true
		go func() {
			id := goid()
			b.started(id, th, seq)
			r := result{}
			defer func() {
				if p := recover(); p != nil {
					r = result{panic: p, stack: debug.Stack()}
				}
				b.push(src, seq, func() { resume(r) })
				b.returned(id)
			}()
			r.err = fn(th.proc.ctx, th.clients)
		}()
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
	th := &thread{b: b, proc: b.proc(t.Process()), client: t.Client(), dials: map[string]uint64{}}
	th.clients = b.newClients(th)
	b.threads[t] = th
	return th
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
}
