package sim

import (
	"errors"
	"iter"
	"math/rand/v2"
	"time"
)

// errKilled unwinds a thread whose process crashed or whose run ended.
var errKilled = errors.New("sim: thread killed")

// Thread is a simulated thread: ordinary blocking Go that yields to the
// scheduler inside every sim call (sleep, command, request).
type Thread struct {
	w       *World
	p       *Process
	Name    string
	id      int
	next    func() (struct{}, bool)
	stop    func()
	yield   func(struct{}) bool
	done    bool
	killed  bool
	bg      bool // started by another thread
	waitTok uint64
	wakeVal any
}

func (w *World) spawn(p *Process, name string, fn func(*Thread)) *Thread {
	t := &Thread{w: w, p: p, Name: name, id: len(w.threads)}
	w.threads = append(w.threads, t)
	p.threads = append(p.threads, t)
	seq := func(yield func(struct{}) bool) {
		t.yield = yield
		defer func() {
			if r := recover(); r != nil && r != errKilled { //nolint:errorlint
				panic(r)
			}
		}()
		fn(t)
	}
	t.next, t.stop = iter.Pull(seq)
	w.rec.event(Event{Kind: EvThread, Party: p.Name, Client: t.Client()})
	tok := t.waitTok
	w.scheduleWake(w.now, t, func() { w.wake(t, tok, nil) })
	return t
}

// wake resumes t with v if t is still waiting on token tok.
func (w *World) wake(t *Thread, tok uint64, v any) {
	if t.done || t.waitTok != tok {
		return
	}
	t.waitTok++
	t.wakeVal = v
	prev := w.running
	w.running = t
	_, ok := t.next()
	w.running = prev
	if !ok {
		t.done = true
	}
}

// park blocks the thread until a wake with its current token.
func (t *Thread) park() any {
	if t.killed {
		panic(errKilled)
	}
	if !t.yield(struct{}{}) || t.killed {
		panic(errKilled)
	}
	return t.wakeVal
}

// Client is the thread's identity in histories: process/thread.
func (t *Thread) Client() string { return t.p.Name + "/" + t.Name }

// Process returns the thread's process.
func (t *Thread) Process() *Process { return t.p }

// World returns the thread's world.
func (t *Thread) World() *World { return t.w }

// Now reads the process's own clock.
func (t *Thread) Now() time.Duration { return t.p.Clock.Read(t.w.now) }

// Sleep blocks for d as measured by the process's clock.
func (t *Thread) Sleep(d time.Duration) {
	if d < 0 {
		d = 0
	}
	tok := t.waitTok
	t.w.scheduleWake(t.w.now+t.p.Clock.TrueSpan(d), t, func() { t.w.wake(t, tok, nil) })
	t.park()
}

// Go starts another thread in the same process.
func (t *Thread) Go(name string, fn func(*Thread)) *Thread {
	nt := t.p.Go(name, fn)
	nt.bg = true
	return nt
}

// Rand is the process's own PRNG stream (tokens, UUIDs, think times).
func (t *Thread) Rand() *rand.Rand { return t.w.streams.Get("proc/" + t.p.Name) }

// Invoke opens an operation in the history and returns its id.
func (t *Thread) Invoke(kind, key, value string) int {
	return t.w.rec.invoke(t.Client(), t.p.Name, kind, key, value)
}

// Return closes operation id with result.
func (t *Thread) Return(id int, result string) { t.w.rec.ret(id, result) }

// Note records a protocol-level event on this thread.
func (t *Thread) Note(key, detail string) {
	t.w.rec.event(Event{Kind: EvNote, Party: t.p.Name, Client: t.Client(), Key: key, Detail: detail})
}
