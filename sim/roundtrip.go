package sim

import (
	"errors"
	"strconv"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// rpc is one call of roundTrip: a request, its attempts and their timers.
// Its state lives in one struct (and one per attempt) rather than in
// closures, which cost an allocation each on every command.
type rpc struct {
	t       *Thread
	from    string // the thread's process
	cfg     ClientConfig
	route   func() string
	what    string
	serve   func(to string, conn int, reply func(any))
	tok     uint64
	timeout time.Duration
	live    int // the attempt whose timer counts: an earlier one's is stale
	cur     int // CancelOnTimeout: the attempt whose reply completes the call; -1: none
	// then, when set, makes the call a future: it runs on the process's
	// event loop when the call completes, whether or not its caller still
	// waits (an interrupted caller does not cancel the command).
	then      func(v any)
	over      bool // the call completed
	abandoned bool // the caller stopped waiting (interrupted)
}

// rpcAttempt is attempt n of an rpc, sent to party; v is its answer.
type rpcAttempt struct {
	c     *rpc
	n     int
	party string
	conn  int // the thread's connection to party when the attempt was sent
	v     any
}

// roundTrip sends a request to party, runs serve on arrival, carries its
// answer back and blocks until an answer or the last attempt's timeout.
func (t *Thread) roundTrip(cfg ClientConfig, route func() string, what string, serve func(to string, conn int, reply func(any))) (Reply, error) {
	return t.roundTripThen(cfg, route, what, serve, nil, true)
}

// roundTripThen is roundTrip whose completion also runs then (see rpc),
// and which returns at once without wait. The wait is interruptible
// (Thread.Interrupt): an interrupted caller returns ErrInterrupted at
// once, and the request it sent goes on.
func (t *Thread) roundTripThen(cfg ClientConfig, route func() string, what string, serve func(to string, conn int, reply func(any)), then func(any), wait bool) (Reply, error) {
	c := &rpc{t: t, from: t.p.Name, cfg: cfg, route: route, what: what, serve: serve, tok: t.waitTok, timeout: cfg.Timeout, then: then}
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
	v := t.park()
	t.call = nil
	switch v := v.(type) {
	case error:
		return Reply{}, v
	case Reply:
		return v, nil
	}
	return Reply{}, errors.New("sim: bad wake value")
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

// finish completes the call with v: its future's callback first, then
// the caller, if it still waits.
func (c *rpc) finish(v any) {
	c.over = true
	if c.then != nil {
		c.then(v)
	}
	if !c.abandoned {
		c.t.w.wake(c.t, c.tok, v)
	}
}

func (c *rpc) attempt(n int) {
	w := c.t.w
	a := &rpcAttempt{c: c, n: n, party: c.route()}
	a.conn = c.t.connTo(a.party)
	w.net.send(c.from, a.party, nil, c.what, a.arrive)
	if c.timeout <= 0 {
		return
	}
	w.scheduleWake(w.now+c.timeout, c.t, a.expire)
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
	w.rec.event(trace.Retry(c.from, t.Client(), c.what+" to "+c.route()+", attempt "+strconv.Itoa(n+2)))
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
	c.serve(a.party, a.conn, a.answer)
}

// answer sends the party's answer back to the waiting thread.
func (a *rpcAttempt) answer(v any) {
	a.v = v
	a.c.t.w.net.sendReply(a.party, a.c.t, a.c.what, a.deliver)
}

// deliver hands the answer to the thread, unless it is stale.
func (a *rpcAttempt) deliver() {
	c, v, n := a.c, a.v, a.n
	// A refused connection is retried at once, as a client does when the
	// node is down.
	if v == ErrRefused && c.waiting() && c.live == n && c.retry(n) {
		return
	}
	t := c.t
	if !c.waiting() {
		return
	}
	if c.cfg.CancelOnTimeout && n != c.cur {
		t.w.rec.event(trace.LateReply(c.from, t.Client(), "late reply to "+c.what+" attempt "+strconv.Itoa(n+1)+" (timed out)"))
		return
	}
	c.finish(v)
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
	t.w.rec.event(trace.Timeout(c.from, t.Client(), c.what+" to "+c.route()))
	c.finish(ErrTimeout)
}
