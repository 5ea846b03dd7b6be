package protocols

import (
	"errors"
	"strconv"
	"time"

	"github.com/locksim/locksim/sim"
)

// Redlock as go-redsync/redsync v4.17.0 (mutex.go, scripts.go, redsync.go)
// implements it. Mutex.Lock(): a random value (16 random bytes, base64);
// up to 32 tries, a random 50-250 ms delay before each retry; each try
// sends SET key value PX expiry NX to every master at once (a goroutine
// per pool) under a deadline of expiry*timeoutFactor (0.05), then
//
//	until := now + expiry - (now - start) - expiry*driftFactor (0.01)
//
// and holds the lock when at least len(pools)/2+1 masters said OK and
// now is before until; otherwise it runs the delete script on every
// master and tries again. Unlock runs the delete script everywhere and
// succeeds with a quorum; Extend runs the compare-and-PEXPIRE touch
// script everywhere and re-checks the validity. Elapsed time is read
// from Go's monotonic clock. redsync leaves out the 2 ms that the Redlock
// description adds to the drift. Defaults: expiry 8 s, 5 masters here.
//
// The per-try deadline is a context deadline handed to the driver. With
// go-redis v9's default ContextTimeoutEnabled=false it does not reach
// the socket: each SET waits up to the 3 s read timeout and redsync
// waits for every pool's answer, so an OK that arrives after the
// deadline still counts (and then faces the validity check). locksim
// stops waiting at the deadline, as a driver that honours the context
// would: it can only count fewer late OKs than the real client, so
// redlock gives the lock up where redsync might hold it (still inside
// its validity), and redlock-unchecked may miss an unsafe hold built on
// OKs that arrived after the deadline. Known deviation, kept because the
// deadline is the documented Redlock step; see DESIGN.md.
//
// redlock-unchecked is the same client without the "now is before until"
// check: a client paused between sending its SETs and reading the
// replies believes it holds a lock whose keys may already have expired.

const redsyncDelete = `
	local val = redis.call("GET", KEYS[1])
	if val == ARGV[1] then
		return redis.call("DEL", KEYS[1])
	elseif val == false then
		return -1
	else
		return 0
	end
`

const redsyncTouch = `
	if redis.call("GET", KEYS[1]) == ARGV[1] then
		return redis.call("PEXPIRE", KEYS[1], ARGV[2])
	else
		return 0
	end
`

// redsync defaults.
const (
	redsyncTries         = 32
	redsyncMinRetryDelay = 50  // ms
	redsyncMaxRetryDelay = 250 // ms
	redsyncDriftFactor   = 0.01
	redsyncTimeoutFactor = 0.05
)

func init() {
	for _, unchecked := range []bool{false, true} {
		name, summary := "redlock", "redsync Redlock: SET NX PX on 5 masters in parallel, quorum 3, validity check, 32 tries"
		if unchecked {
			name, summary = "redlock-unchecked", "redsync Redlock without the validity check: unsafe when paused during acquisition"
		}
		register(Protocol{
			Name:       name,
			Source:     "go-redsync/redsync v4.17.0 (79f6ba2: Mutex.Lock/Unlock/Extend, scripts.go)",
			Summary:    summary,
			Lease:      8 * time.Second,
			Topologies: []string{TopoIndependent},
			Masters:    5,
			New: func(env Env, key string) Lock {
				return &redlock{env: env, key: key, expiry: env.Lease, unchecked: unchecked}
			},
		})
	}
}

type redlock struct {
	env       Env
	key       string
	expiry    time.Duration
	unchecked bool
	touch     string // the Extend script: redsyncTouch unless set
	value     string
	until     time.Duration // on the monotonic clock
}

// ErrLockAlreadyExpired is redsync's error for a release that found no key.
var ErrLockAlreadyExpired = errors.New("redsync: failed to unlock, lock was already expired")

func (l *redlock) quorum() int { return len(l.env.Nodes)/2 + 1 }

func (l *redlock) timeout() time.Duration {
	return time.Duration(int64(float64(l.expiry) * redsyncTimeoutFactor))
}

func (l *redlock) validity(start, now time.Duration) time.Duration {
	return now + l.expiry - (now - start) - time.Duration(int64(float64(l.expiry)*redsyncDriftFactor))
}

// Acquire is Mutex.Lock().
func (l *redlock) Acquire(t *sim.Thread) (bool, error) {
	value := randomToken(t, true)
	for i := 0; i < redsyncTries; i++ {
		if i != 0 {
			t.Sleep(time.Duration(t.Rand().IntN(redsyncMaxRetryDelay-redsyncMinRetryDelay)+redsyncMinRetryDelay) * time.Millisecond)
		}
		start := monoNow(t, l.env)
		n, err := l.actOnNodes(t, l.timeout(), func(c *sim.Thread, node string) (bool, error) {
			r, err := c.Call(node, "SET", l.key, value, "PX", ms(l.expiry), "NX")
			return err == nil && r.Kind == '+', err
		})
		now := monoNow(t, l.env)
		until := l.validity(start, now)
		if n >= l.quorum() && (l.unchecked || now < until) {
			l.value, l.until = value, until
			return true, nil
		}
		if n >= l.quorum() {
			t.Note(l.key, "redsync: quorum reached but validity spent ("+strconv.FormatInt((now-start).Milliseconds(), 10)+" ms elapsed); releasing")
		}
		l.actOnNodes(t, l.timeout(), func(c *sim.Thread, node string) (bool, error) {
			return l.release(c, node, value)
		})
		if i == redsyncTries-1 && err != nil {
			return false, err
		}
	}
	return false, nil // ErrFailed
}

func (l *redlock) release(c *sim.Thread, node, value string) (bool, error) {
	r, err := c.Call(node, "EVAL", redsyncDelete, "1", l.key, value)
	if err != nil {
		return false, err
	}
	if r.Int == -1 {
		return false, ErrLockAlreadyExpired
	}
	return r.Int != 0, nil
}

// Release is Mutex.Unlock(): the delete script everywhere, no deadline.
func (l *redlock) Release(t *sim.Thread) (bool, error) {
	n, err := l.actOnNodes(t, 0, func(c *sim.Thread, node string) (bool, error) {
		return l.release(c, node, l.value)
	})
	if n < l.quorum() {
		return false, err
	}
	return true, nil
}

// Extend is Mutex.Extend(): the touch script everywhere, then the
// validity re-check.
func (l *redlock) Extend(t *sim.Thread) (bool, error) {
	start := monoNow(t, l.env)
	n, err := l.actOnNodes(t, 0, func(c *sim.Thread, node string) (bool, error) {
		touch := l.touch
		if touch == "" {
			touch = redsyncTouch
		}
		r, err := c.Call(node, "EVAL", touch, "1", l.key, l.value, ms(l.expiry))
		if err != nil {
			return false, err
		}
		return r.Int != 0, nil
	})
	if n < l.quorum() {
		return false, err
	}
	now := monoNow(t, l.env)
	if until := l.validity(start, now); now < until {
		l.until = until
		return true, nil
	}
	return false, errors.New("redsync: failed to extend lock")
}

// actOnNodes is actOnPoolsAsync: fn runs on every node at once, each in
// its own thread of the process (a goroutine per pool); the caller waits
// for all of them or until the deadline (a context timeout; 0: none).
// It returns how many succeeded and a transport error if any node had
// one; nodes that merely refused are not errors here.
func (l *redlock) actOnNodes(t *sim.Thread, deadline time.Duration, fn func(c *sim.Thread, node string) (bool, error)) (int, error) {
	type result struct {
		ok   bool
		err  error
		done bool
	}
	p := t.Process()
	st := l.env.local(p, "redsync-fanout", func() any { return new(int) }).(*int)
	*st++
	done := p.Sem("redsync:"+t.Name+":"+strconv.Itoa(*st), 0)
	results := make([]result, len(l.env.Nodes))
	for i, node := range l.env.Nodes {
		// The goroutine acts for the calling thread: same name, so the
		// trace attributes its commands to the caller; its own connection.
		p.Go(t.Name, func(c *sim.Thread) {
			ok, err := fn(c, node)
			results[i] = result{ok: ok, err: err, done: true}
			done.Release(1)
		})
	}
	start := monoNow(t, l.env)
	for range l.env.Nodes {
		wait := time.Duration(-1)
		if deadline > 0 {
			wait = deadline - (monoNow(t, l.env) - start)
			if wait <= 0 {
				break
			}
		}
		if !done.Acquire(t, wait) {
			break
		}
	}
	n := 0
	var err error
	for i, r := range results {
		switch {
		case !r.done:
			err = errors.New("redsync: " + l.env.Nodes[i] + ": context deadline exceeded")
		case r.ok:
			n++
		case r.err != nil && r.err != ErrLockAlreadyExpired:
			err = r.err
		}
	}
	return n, err
}
