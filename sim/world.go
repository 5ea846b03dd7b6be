// Package sim is the deterministic world locksim runs lock protocols in:
// virtual time, an event queue, seeded PRNG streams, processes with
// cooperative threads, a network, Redis nodes backed by miniredis, services
// (a database, a storage), faults and the recorder of the Trace. It knows
// nothing of locks.
package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/locksim/locksim/sim/luafast"
	"github.com/locksim/locksim/sim/trace"
)

// Config holds what the world itself depends on.
type Config struct {
	Seed           uint64
	Horizon        time.Duration // events after this virtual time are not run
	Network        NetworkConfig
	CommandTimeout time.Duration // client-side timeout of one command; 0 = none
	MaxEvents      int64         // events run before the run stops as over budget; 0 = no limit
	Pool           *Pool         // where the run takes Redis stores and coroutines from and gives them back; nil = none
	// Scripts are Lua scripts with fast paths that every node runs
	// without the Lua VM (see Script).
	Scripts []Script
}

// World is one simulation run. It is single-threaded: exactly one simulated
// thread or event handler runs at a time.
type World struct {
	cfg         Config
	lua         *luafast.Cache // its nodes' compiled scripts and Lua states: the pool's, or the run's own
	now         time.Duration
	seq         uint64
	q           eventQueue
	streams     *Streams
	rec         recorder
	net         *Network
	procs       []*Process
	nodes       map[string]*Node
	nodeOrder   []*Node // nodes in name order, once asked for (nodeList)
	services    map[string]*Service
	firstThread *Thread // the threads started, in order, linked by Thread.next
	lastThread  *Thread
	nthreads    int
	reconnects  int // connections opened after a timeout, for their numbers
	running     *Thread
	live        int               // threads that are not daemons and have not finished
	master      string            // the node Master resolves to by default
	scriptNames map[string]string // script body -> its name in the trace
	lastScript  lastScript
	idle        []*coro // coroutines free for the next thread
	corosMade   int
	repl        ReplicationConfig
	anchors     []*armed // anchored faults
	injected    int      // faults injected so far: the last one's id
	ext         External
	onPromote   []func(old, new string)
	onNodeCrash []func(node string)
	sentinel    sentinelView
	onEnd       []func()
	err         error
	ran         bool
	alloc       *allocator // what the run makes by the dozen (alloc.go)
}

// New returns an empty world.
func New(cfg Config) *World {
	if cfg.Horizon <= 0 {
		cfg.Horizon = time.Hour
	}
	w := &World{
		cfg:      cfg,
		lua:      cfg.Pool.luaCache(),
		alloc:    cfg.Pool.takeAllocator(),
		streams:  NewStreams(cfg.Seed),
		nodes:    map[string]*Node{},
		services: map[string]*Service{},
		// Room for what a short run holds at once, rather than growing
		// to it an allocation at a time.
		q:     make(eventQueue, 0, 32),
		procs: make([]*Process, 0, 8),
		idle:  make([]*coro, 0, 8),
	}
	w.rec.w = w
	w.rec.trace.Scripts = map[string]string{}
	w.scriptNames = map[string]string{}
	w.net = newNetwork(w, cfg.Network)
	if w.lua == nil {
		w.lua = &luafast.Cache{} // shared by the run's nodes
	}
	return w
}

// SetMaster makes Master resolve to node for every process that has not
// learned otherwise.
func (w *World) SetMaster(node string) { w.master = node }

// Now is the true virtual time.
func (w *World) Now() time.Duration { return w.now }

// Rand returns the named PRNG stream of this run.
func (w *World) Rand(name string) *rand.Rand { return w.streams.Get(name) }

// Net returns the network.
func (w *World) Net() *Network { return w.net }

// Record appends a free-form event to the trace.
func (w *World) Record(e trace.Event) { w.rec.event(e) }

// At schedules fn at virtual time at (not tied to any process).
func (w *World) At(at time.Duration, fn func()) { w.schedule(at, nil, fn) }

func (w *World) schedule(at time.Duration, p *Process, fn func()) {
	e := w.alloc.event()
	e.at, e.proc, e.ref = at, p, fn
	w.scheduleEvent(e)
}

// scheduleWake schedules fn, a wake-up of thread t.
func (w *World) scheduleWake(at time.Duration, t *Thread, fn func()) {
	e := w.alloc.event()
	e.at, e.proc, e.thr, e.ref = at, t.p, t, fn
	w.scheduleEvent(e)
}

// wakeAt schedules a wake-up of t with token tok and value v.
func (w *World) wakeAt(at time.Duration, t *Thread, tok uint64, v any) {
	e := w.alloc.event()
	e.at, e.proc, e.thr, e.do, e.tok, e.val = at, t.p, t, doWake, tok, v
	w.scheduleEvent(e)
}

func (w *World) scheduleEvent(e *event) {
	if e.at < w.now {
		e.at = w.now
	}
	w.seq++
	e.seq = w.seq
	w.q.push(e)
}

// Fail stops the run with err: Run returns it instead of a trace. Outside
// code may call it until Run returns, from the functions registered with
// OnEnd included (a goroutine that never returned, found as the run
// ends).
func (w *World) Fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// message is what a network event carries besides its delivery.
type message struct {
	from, to, what string
}

// fire runs e and keeps it for reuse. Nothing refers to an event once it
// ran: held events (paused processes, stalled threads) never reach here.
func (w *World) fire(e *event) {
	if e.sent {
		w.net.arrive(e)
	} else {
		e.run(w)
	}
	w.alloc.reuse(e)
}

// ErrPanic wraps a panic raised by simulated code.
var ErrPanic = errors.New("simulated code panicked")

// Run runs the world until no event is left or the horizon is reached, and
// returns the trace. A World runs once.
func (w *World) Run() (tr *trace.Trace, err error) {
	if w.ran {
		return nil, errors.New("sim: world already ran")
	}
	w.ran = true
	defer func() {
		w.stopThreads()
		if w.err != nil && err == nil {
			tr, err = nil, w.err
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrPanic, r)
			tr = nil
		}
	}()
	started := w.live > 0
	budget := ""
	for n := int64(0); w.err == nil; {
		if started && w.live == 0 {
			break // every application thread is done: daemons do not keep the run alive
		}
		if w.ext != nil {
			due, alive := w.advanceExternal()
			if !alive {
				if w.live > 0 {
					budget = w.horizonBudget()
				}
				break
			}
			if !due {
				continue
			}
		}
		if w.q.Len() == 0 {
			break
		}
		if w.cfg.MaxEvents > 0 && n >= w.cfg.MaxEvents {
			budget = fmt.Sprintf("events: the run needed more than %d", w.cfg.MaxEvents)
			break
		}
		n++
		e := w.q.pop()
		if e.at > w.cfg.Horizon {
			if w.live > 0 {
				budget = w.horizonBudget()
			}
			break
		}
		w.now = e.at
		if p := e.proc; p != nil {
			if p.crashed {
				continue
			}
			if p.paused {
				p.held = append(p.held, e)
				continue
			}
			if e.thr != nil && e.thr.bg && p.stalled {
				p.stallHeld = append(p.stallHeld, e)
				continue
			}
		}
		w.fire(e)
	}
	if w.err != nil {
		return nil, w.err
	}
	t := w.rec.trace // a copy: a trace pointing into the world would keep the whole world alive
	w.q, w.alloc.ran = nil, nil
	t.Events = w.rec.events()
	w.rec.first, w.rec.done, w.rec.cur = nil, nil, nil
	t.Stats.SimNs = w.rec.last
	t.Stats.Events = len(t.Events)
	t.Stats.Budget = budget
	return &t, nil
}

// horizonBudget is the budget a run exhausts when its clients are still
// working at the horizon.
func (w *World) horizonBudget() string {
	return fmt.Sprintf("%s at the %s horizon", trace.HorizonBudget, w.cfg.Horizon)
}

// nodeList returns the nodes in name order, sorted once after the last
// AddNode; callers must not change it.
func (w *World) nodeList() []*Node {
	if w.nodeOrder != nil {
		return w.nodeOrder
	}
	out := make([]*Node, 0, len(w.nodes))
	for _, n := range w.nodes {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	w.nodeOrder = out
	return out
}

// eachThread calls fn with every thread the world started before the
// call, in start order.
func (w *World) eachThread(fn func(*Thread)) {
	for t, last := w.firstThread, w.lastThread; t != nil; t = t.next {
		fn(t)
		if t == last {
			return
		}
	}
}

// stopThreads unwinds every thread still blocked, so no goroutine leaks,
// and gives the nodes' Lua states back for the next run.
func (w *World) stopThreads() {
	for _, n := range w.nodeList() {
		n.lua.Close()
	}
	w.eachThread(func(t *Thread) {
		if !t.done {
			t.kill()
		}
	})
	w.endCoros()
	for _, fn := range w.onEnd {
		fn()
	}
}
