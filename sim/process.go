package sim

import (
	"time"
)

// Clock is a process's or node's view of time: true time plus an offset
// and a drift rate (parts per million).
type Clock struct {
	Offset   time.Duration
	DriftPPM int64
}

// Read converts true virtual time to this clock's reading.
func (c Clock) Read(now time.Duration) time.Duration {
	return now + c.Offset + time.Duration(int64(now)*c.DriftPPM/1_000_000)
}

// TrueSpan converts a span measured on this clock to true time.
func (c Clock) TrueSpan(d time.Duration) time.Duration {
	if c.DriftPPM == 0 {
		return d
	}
	return time.Duration(int64(d) * 1_000_000 / (1_000_000 + c.DriftPPM))
}

// Process is one application instance: a clock, threads, and a state
// (running, paused, crashed) that applies to all of its threads at once.
type Process struct {
	w       *World
	Name    string
	Clock   Clock
	paused  bool
	crashed bool
	held    []*event
	threads []*Thread
	view    string // the master this process believes in; "" = the world's
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
	p := &Process{w: w, Name: name}
	w.procs = append(w.procs, p)
	return p
}

// Go starts a thread in the process at the current virtual time.
func (p *Process) Go(name string, fn func(*Thread)) *Thread {
	return p.w.spawn(p, name, fn)
}

// Pause stops every thread of the process (a stop-the-world GC pause):
// timers, replies and wake-ups aimed at it are held until Resume.
func (p *Process) Pause(d time.Duration, why string) {
	if p.paused || p.crashed {
		return
	}
	p.paused = true
	p.w.rec.event(Event{Kind: EvPause, Party: p.Name, Detail: why, DurNs: int64(d)})
	p.w.schedule(p.w.now+d, nil, p.resume)
}

func (p *Process) resume() {
	if !p.paused {
		return
	}
	p.paused = false
	p.w.rec.event(Event{Kind: EvResume, Party: p.Name})
	held := p.held
	p.held = nil
	for _, e := range held {
		p.w.schedule(p.w.now, e.proc, e.fn)
	}
}

// Paused reports whether the process is stopped.
func (p *Process) Paused() bool { return p.paused }
