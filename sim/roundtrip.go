package sim

import (
	"errors"
	"strconv"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// rpc is one call of roundTrip: a request, its attempts and their timers.
// Its state lives in one struct (the first attempt included) and its
// steps are typed events, not closures, which cost an allocation each on
// every command.
type rpc struct {
	t       *Thread
	cfg     ClientConfig
	to      string // the party, unless toMaster
	what    string
	args    []string            // a command for the node, or a request for svc
	svc     *Service            // the service args go to
	sub     *Subscription       // a SUBSCRIBE
	serve   func(a *rpcAttempt) // any other request
	tok     uint64
	timeout time.Duration
	live    int // the attempt whose timer counts: an earlier one's is stale
	cur     int // CancelOnTimeout: the attempt whose reply completes the call; -1: none
	// then, when set, makes the call a future: it runs on the process's
	// event loop when the call completes, whether or not its caller still
	// waits (an interrupted caller does not cancel the command).
	then      func(Reply, error)
	by        *rpcAttempt // the attempt whose answer the caller returns, if any
	err       error       // what the caller returns otherwise
	toMaster  bool        // each attempt goes to the master the process knows then
	over      bool        // the call completed
	abandoned bool        // the caller stopped waiting (interrupted)
	woken     bool        // by (or err) is what the caller returns
	first     rpcAttempt
	timer     *event // the latest attempt's timeout, while it may be pending
}

// rpcAttempt is attempt n of an rpc, sent to party; r or err is its answer.
type rpcAttempt struct {
	c     *rpc
	n     int
	party string
	conn  int // the thread's connection to party when the attempt was sent
	r     Reply
	err   error
}

// roundTrip sends c's request, serves it on arrival, carries its answer
// back and blocks until an answer or the last attempt's timeout.
func (t *Thread) roundTrip(c *rpc) (Reply, error) {
	return t.roundTripThen(c, true)
}

// roundTripThen is roundTrip that returns at once without wait (c.then
// still runs on completion). The wait is interruptible
// (Thread.Interrupt): an interrupted caller returns ErrInterrupted at
// once, and the request it sent goes on.
func (t *Thread) roundTripThen(c *rpc, wait bool) (Reply, error) {
	c.t, c.tok, c.timeout = t, t.waitTok, c.cfg.Timeout
	if c.timeout == 0 {
		c.timeout = t.w.cfg.CommandTimeout
	}
	c.attempt(0)
	if !wait { // sent as a future nobody waits for
		c.abandoned = true
		return Reply{}, nil
	}
	if t.interrupted { // Future.get() with the interrupt status set throws at once
		t.interrupted = false
		c.abandoned = true
		return Reply{}, ErrInterrupted
	}
	t.call = c
	t.park()
	t.call = nil
	if !c.woken {
		return Reply{}, errors.New("sim: bad wake value")
	}
	if c.by != nil {
		return c.by.r, c.by.err
	}
	return Reply{}, c.err
}

// waiting reports whether the call is still open: a future until it
// completes (or its process crashed), a plain call while its caller waits.
func (c *rpc) waiting() bool {
	switch {
	case c.over:
		return false
	case c.then != nil:
		return !c.t.p.crashed
	}
	return !c.abandoned && c.t.waitTok == c.tok && !c.t.done
}

// finish completes the call with the answer of attempt a, or with err
// when a is nil: its future's callback first, then the caller, if it
// still waits.
func (c *rpc) finish(a *rpcAttempt, err error) {
	c.over = true
	c.disarm()
	if c.then != nil {
		if a != nil {
			c.then(a.r, a.err)
		} else {
			c.then(Reply{}, err)
		}
	}
	if !c.abandoned {
		c.wake(a, err)
	}
}

// wake resumes the caller with the answer of attempt a, or with err when
// a is nil, as the call's outcome.
func (c *rpc) wake(a *rpcAttempt, err error) {
	c.by, c.err, c.woken = a, err, true
	c.t.w.wake(c.t, c.tok, nil)
}

// route is the party attempts go to now.
func (c *rpc) route() string {
	if c.toMaster {
		return c.t.p.master()
	}
	return c.to
}

func (c *rpc) attempt(n int) {
	w := c.t.w
	a := &c.first
	if n > 0 {
		a = &rpcAttempt{}
	}
	a.c, a.n, a.party = c, n, c.route()
	a.conn = c.t.connTo(a.party)
	w.net.sendRequest(a)
	if c.timeout <= 0 {
		return
	}
	e := w.alloc.event()
	e.at, e.proc, e.thr, e.do, e.ref = w.now+c.timeout, c.t.p, c.t, doExpire, a
	c.timer = e
	w.scheduleEvent(e)
}

// disarm makes the latest attempt's pending timeout a step that does
// nothing, once the call is over: the timer (seconds) no longer keeps the
// call (answered in a millisecond) in memory until it fires. An event
// that already fired was cleared for reuse and is not c's any more.
func (c *rpc) disarm() {
	e := c.timer
	if e == nil {
		return
	}
	if a, ok := e.ref.(*rpcAttempt); ok && e.do == doExpire && a.c == c {
		c.t.w.disarm(e)
	}
	c.timer = nil
}

// retry schedules the attempt after n, if the policy has one left.
func (c *rpc) retry(n int) bool {
	if n >= c.cfg.Retries {
		return false
	}
	c.live = n + 1
	if c.cfg.CancelOnTimeout {
		c.cur = -1
	}
	t, w := c.t, c.t.w
	w.rec.event(trace.Retry(t.p.Name, t.Client(), c.what+" to "+c.route()+", attempt "+strconv.Itoa(n+2)))
	w.scheduleWake(w.now+t.RetryDelay(c.cfg, n), t, func() {
		if c.waiting() {
			c.cur = n + 1
			c.attempt(n + 1)
		}
	})
	return true
}

// arrive runs the request at its party; one whose caller has given up
// on it still runs, and is marked late after it ran.
func (a *rpcAttempt) arrive() {
	c := a.c
	if !c.waiting() || c.cfg.CancelOnTimeout && a.n != c.cur {
		t := c.t
		defer t.w.rec.event(trace.Late(a.party, t.Client(), c.what+" attempt "+strconv.Itoa(a.n+1)+" arrived after its caller gave up"))
	}
	switch {
	case c.svc != nil:
		a.answer(c.svc.handle(c.t, c.args))
		return
	case c.sub != nil:
		c.sub.register(a)
		return
	case c.serve != nil:
		c.serve(a)
		return
	}
	n := c.t.w.nodes[a.party]
	if n.down {
		n.refuse(c.t, c.what, a)
		return
	}
	n.execAsync(a.conn, c.t.Client(), c.args, a)
}

// answer sends the party's reply back to the waiting thread.
func (a *rpcAttempt) answer(r Reply) {
	a.r = r
	a.c.t.w.net.sendReply(a)
}

// fail sends the party's failure (a refused connection) back.
func (a *rpcAttempt) fail(err error) {
	a.err = err
	a.c.t.w.net.sendReply(a)
}

// deliver hands the answer to the thread, unless it is stale.
func (a *rpcAttempt) deliver() {
	c, n := a.c, a.n
	// A refused connection is retried at once, as a client does when the
	// node is down.
	if a.err == ErrRefused && c.waiting() && c.live == n && c.retry(n) {
		return
	}
	t := c.t
	if !c.waiting() {
		return
	}
	if c.cfg.CancelOnTimeout && n != c.cur {
		t.w.rec.event(trace.LateReply(t.p.Name, t.Client(), "late reply to "+c.what+" attempt "+strconv.Itoa(n+1)+" (timed out)"))
		return
	}
	c.finish(a, nil)
}

// expire is the attempt's timeout: a retry, or the call fails.
func (a *rpcAttempt) expire() {
	c, n := a.c, a.n
	if !c.waiting() || c.live != n {
		return
	}
	c.t.dropConn(a.party)
	if c.retry(n) {
		return
	}
	t := c.t
	t.w.rec.event(trace.Timeout(t.p.Name, t.Client(), c.what+" to "+c.route()))
	c.finish(nil, ErrTimeout)
}
