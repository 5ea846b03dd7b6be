package sim

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// Clock is a process's or node's view of time: true time plus an offset
// and a drift rate (parts per million).
type Clock struct {
	Offset   time.Duration
	DriftPPM int64
	Jumped   time.Duration // the part of Offset that came from jumps
}

// Read converts true virtual time to this clock's reading.
func (c Clock) Read(now time.Duration) time.Duration {
	return now + c.Offset + time.Duration(int64(now)*c.DriftPPM/1_000_000)
}

// TrueSpan converts a span measured on this clock to true time, rounding
// up so that the clock has surely covered d by then, without overflowing
// for long spans.
func (c Clock) TrueSpan(d time.Duration) time.Duration {
	if c.DriftPPM == 0 || d <= 0 {
		return d
	}
	rate := 1_000_000 + c.DriftPPM
	if rate <= 0 {
		rate = 1
	}
	q, r := int64(d)/rate, int64(d)%rate
	return time.Duration(q*1_000_000 + (r*1_000_000+rate-1)/rate)
}

// Process is one application instance: a clock, threads, and a state
// (running, paused, crashed) that applies to all of its threads at once.
type Process struct {
	w           *World
	Name        string
	Clock       Clock
	Client      ClientConfig
	paused      bool
	pausedBy    int // the scheduled fault that paused the process (0: none)
	crashed     bool
	held        []*event
	heldRoom    [4]*event
	firstThread *Thread // its threads, in order, linked by Thread.procNext
	lastThread  *Thread
	lastName    string // the last thread name it started, and that thread's client name
	lastClient  string
	view        string // the master this process believes in; "" = the world's
	sems        map[string]*Sem
	boot        func(*Process)
	base        string // the first instance's name, for restarts
	incarnation int
	stalled     bool       // background threads are stalled (watchdog-stall)
	stallHeld   []*event   // their wake-ups, held
	rng         *rand.Rand // the process's stream, once drawn from
	onCrash     []func()
	// OwnDiscovery marks a process whose client library learns a new
	// master itself (go-redis asking the sentinel): a failover does not
	// move its view of the master.
	OwnDiscovery bool
	// SlowWork is added to every critical section while a slow-work fault
	// is on (the workload reads it).
	SlowWork time.Duration
}

// master resolves Master for this process.
func (p *Process) master() string {
	if p.view != "" {
		return p.view
	}
	return p.w.master
}

// AddProcess adds an application instance.
func (w *World) AddProcess(name string) *Process {
	p := w.alloc.process()
	p.w, p.Name = w, name
	w.procs = append(w.procs, p)
	return p
}

// eachThread calls fn with every thread the process started before the
// call, in order.
func (p *Process) eachThread(fn func(*Thread)) {
	for t, last := p.firstThread, p.lastThread; t != nil; t = t.procNext {
		fn(t)
		if t == last {
			return
		}
	}
}

// clientName is the identity in histories of the process's thread
// called name, process/thread: a renewal timer starts a thread of the
// same name on every tick.
func (p *Process) clientName(name string) string {
	if name != p.lastName || p.lastClient == "" {
		b := append(append(append(p.w.alloc.textRoom(len(p.Name)+1+len(name)), p.Name...), '/'), name...)
		p.lastName, p.lastClient = name, p.w.alloc.keepText(b)
	}
	return p.lastClient
}

// Go starts a thread in the process at the current virtual time. The run
// ends when every such thread has finished.
func (p *Process) Go(name string, fn func(*Thread)) *Thread {
	return p.w.spawn(p, name, fn)
}

// GoDaemon starts a daemon thread: the run does not wait for it.
func (p *Process) GoDaemon(name string, fn func(*Thread)) *Thread {
	return p.w.spawnDaemon(p, name, fn)
}

// Pause stops every thread of the process (a stop-the-world GC pause):
// timers, replies and wake-ups aimed at it are held until Resume.
func (p *Process) Pause(d time.Duration, why string) { p.pause(d, why, 0) }

// pause is Pause by the scheduled fault id.
func (p *Process) pause(d time.Duration, why string, fault int) {
	if p.paused || p.crashed {
		return
	}
	p.paused, p.pausedBy = true, fault
	if p.held == nil { // most pauses hold a few events
		p.held = p.heldRoom[:0]
	}
	p.w.rec.event(trace.Pause(p.Name, why, d).WithFault(fault))
	e := p.w.alloc.event()
	e.at, e.do, e.ref = p.w.now+d, doResume, p
	p.w.scheduleEvent(e)
}

func (p *Process) resume() {
	if !p.paused {
		return
	}
	p.paused = false
	p.w.rec.event(trace.Resume(p.Name).WithFault(p.pausedBy))
	held := p.held
	for _, e := range held {
		e.at = p.w.now
		p.w.scheduleEvent(e)
	}
	clear(held)
	p.held = held[:0] // the next pause holds its events in the same room
}

// Paused reports whether the process is stopped.
func (p *Process) Paused() bool { return p.paused }

// SetBoot sets the function that starts the process's threads. A crashed
// process restarted with Crash(d >= 0) comes back as a new instance (a new
// name, "c1#2", so histories give it a fresh identity) that runs boot again.
func (p *Process) SetBoot(boot func(*Process)) { p.boot = boot }

// Crashed reports whether the process has crashed.
func (p *Process) Crashed() bool { return p.crashed }

// Crash stops the process for good: its threads unwind without running
// any more sim calls (a finally block cannot release anything), its
// subscriptions close, held and future messages to it are dropped. With
// restartAfter >= 0 a new instance boots that much later.
func (p *Process) Crash(restartAfter time.Duration) { p.crash(restartAfter, 0) }

// crash is Crash by the scheduled fault id, which the restart carries too.
func (p *Process) crash(restartAfter time.Duration, fault int) {
	if p.crashed {
		return
	}
	w := p.w
	p.crashed = true
	p.paused = false
	p.held = nil
	w.rec.event(trace.Crash(p.Name).WithFault(fault))
	for _, n := range w.nodeList() {
		for ch, subs := range n.subs {
			kept := subs[:0:0]
			for _, s := range subs {
				if s.p == p {
					s.active = false
				} else {
					kept = append(kept, s)
				}
			}
			n.subs[ch] = kept
		}
	}
	p.eachThread(func(t *Thread) {
		if !t.done {
			t.kill()
		}
	})
	for _, fn := range p.onCrash {
		fn()
	}
	if restartAfter < 0 || p.boot == nil {
		return
	}
	w.live++ // the coming restart keeps the run alive
	w.schedule(w.now+restartAfter, nil, func() {
		w.live--
		base, inc := p.base, p.incarnation+1
		if base == "" {
			base, inc = p.Name, 2
		}
		np := w.AddProcess(base + "#" + strconv.Itoa(inc))
		np.base, np.incarnation = base, inc
		np.Clock, np.Client, np.boot, np.view = p.Clock, p.Client, p.boot, p.view
		np.OwnDiscovery = p.OwnDiscovery
		w.rec.event(trace.Restart(np.Name, base).WithFault(fault))
		np.boot(np)
	})
}

// withDrift returns c running at ppm from true time now on, continuous at now.
func (c Clock) withDrift(now time.Duration, ppm int64) Clock {
	c.Offset += time.Duration(int64(now) * (c.DriftPPM - ppm) / 1_000_000)
	c.DriftPPM = ppm
	return c
}

// jumpClock moves the process's clock by d (the scheduled fault id).
func (p *Process) jumpClock(d time.Duration, fault int) {
	p.Clock.Offset += d
	p.Clock.Jumped += d
	p.w.rec.event(trace.ClockJump(p.Name, d).WithFault(fault))
}

// setDrift changes the process's clock rate without a jump (the
// scheduled fault id).
func (p *Process) setDrift(ppm int64, fault int) {
	p.Clock = p.Clock.withDrift(p.w.now, ppm)
	p.w.rec.event(trace.ClockDrift(p.Name, ppm).WithFault(fault))
}

func itoa64(v int64) string { return strconv.FormatInt(v, 10) }

// stall holds the wake-ups of every background thread (one started by
// another thread, like a watchdog or renewal daemon) for d, while the rest
// of the process runs (the scheduled fault id).
func (p *Process) stall(d time.Duration, fault int) {
	if p.stalled || p.crashed {
		return
	}
	p.stalled = true
	p.w.rec.event(trace.FaultApplied(p.Name, trace.FaultWatchdogStall, "background threads stalled", d).WithFault(fault))
	p.w.schedule(p.w.now+d, nil, func() {
		p.stalled = false
		p.w.rec.event(trace.FaultNote(p.Name, "watchdog-stall over").WithFault(fault))
		held := p.stallHeld
		p.stallHeld = nil
		for _, e := range held {
			e.at = p.w.now
			p.w.scheduleEvent(e)
		}
	})
}

// Boot runs the boot function set with SetBoot.
func (p *Process) Boot() {
	if p.boot != nil {
		p.boot(p)
	}
}

// Restarted reports whether this is a restarted instance.
func (p *Process) Restarted() bool { return p.incarnation > 1 }
