package protocols

import (
	"errors"
	"strconv"
	"time"

	"github.com/locksim/locksim/sim"
)

// Redlock as go-redsync/redsync v4.18.1 (mutex.go, scripts.go,
// redsync.go, redis/goredis/v9) implements it, over go-redis v9.23.0 with
// its defaults (goredis_client.go). Mutex.Lock(): a random value (16
// random bytes, base64); up to 32 tries, a random 50-250 ms delay before
// each retry; each try sends SET key value PX expiry NX to every master
// at once (a goroutine per pool) with a context whose deadline is
// expiry*timeoutFactor (0.05) away, waits for every master's answer,
// then
//
//	until := now + expiry - (now - start) - expiry*driftFactor (0.01)
//
// and holds the lock when at least len(pools)/2+1 masters said OK and
// now is before until; otherwise it runs the delete script on every
// master (under a new deadline) and tries again. Unlock runs the delete
// script everywhere and succeeds with a quorum; Extend runs the
// compare-and-PEXPIRE touch script everywhere and re-checks the
// validity. Elapsed time is read from Go's monotonic clock. redsync
// leaves out the 2 ms that the Redlock description adds to the drift.
// Defaults: expiry 8 s, 5 masters here.
//
// The per-try deadline does not cut a read short: go-redis's
// ContextTimeoutEnabled is false by default, so a master whose reply was
// lost answers only when go-redis's 5 s read timeout ends the attempt
// (the deadline then stops its retries), and redsync waits for it: such a
// Lock returns 5 s late with the validity left over, which the holder's
// work may outlast. An OK that arrives after the deadline still counts.
//
// redlock-unchecked is the same client without the "now is before until"
// check: a client paused between sending its SETs and reading the
// replies believes it holds a lock whose keys may already have expired.

// redsync's deleteScript and touchScript and their fast paths are in
// compare_scripts.go.

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
			Source:     "go-redsync/redsync v4.18.1 (Mutex.Lock/Unlock/Extend, scripts.go) on go-redis v9.23.0 defaults",
			Summary:    summary,
			Lease:      8 * time.Second,
			Topologies: []string{TopoIndependent},
			Masters:    5,
			Steps:      redlockSteps,
			Scripts:    redsyncScripts,
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
		deadline := start + l.timeout()
		n, err := l.actOnNodes(t, func(c *sim.Thread, node string) (bool, error) {
			r, err := goRedisCall(c, l.env, deadline, node, "SET", l.key, value, "PX", ms(l.expiry), "NX")
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
		deadline = monoNow(t, l.env) + l.timeout()
		l.actOnNodes(t, func(c *sim.Thread, node string) (bool, error) {
			return l.release(c, deadline, node, value)
		})
		if i == redsyncTries-1 && err != nil {
			return false, err
		}
	}
	return false, nil // ErrFailed
}

func (l *redlock) release(c *sim.Thread, deadline time.Duration, node, value string) (bool, error) {
	r, err := goRedisCall(c, l.env, deadline, node, "EVAL", redsyncDelete, "1", l.key, value)
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
	n, err := l.actOnNodes(t, func(c *sim.Thread, node string) (bool, error) {
		return l.release(c, 0, node, l.value)
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
	n, err := l.actOnNodes(t, func(c *sim.Thread, node string) (bool, error) {
		touch := l.touch
		if touch == "" {
			touch = redsyncTouch
		}
		r, err := goRedisCall(c, l.env, 0, node, "EVAL", touch, "1", l.key, l.value, ms(l.expiry))
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
// its own thread of the process (a goroutine per pool), and the caller
// waits for all of them. It returns how many succeeded and a transport
// error if any node had one; nodes that merely refused are not errors
// here.
func (l *redlock) actOnNodes(t *sim.Thread, fn func(c *sim.Thread, node string) (bool, error)) (int, error) {
	type result struct {
		ok  bool
		err error
	}
	p := t.Process()
	done := p.NewSem(0)
	results := make([]result, len(l.env.Nodes))
	for i, node := range l.env.Nodes {
		// The goroutine acts for the calling thread: same name, so the
		// trace attributes its commands to the caller; its own connection.
		p.Go(t.Name, func(c *sim.Thread) {
			ok, err := fn(c, node)
			results[i] = result{ok: ok, err: err}
			done.Release(1)
		})
	}
	for range l.env.Nodes {
		done.Acquire(t, -1)
	}
	n := 0
	var err error
	for _, r := range results {
		switch {
		case r.ok:
			n++
		case r.err != nil && r.err != ErrLockAlreadyExpired:
			err = r.err
		}
	}
	return n, err
}
