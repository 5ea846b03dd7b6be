package protocols

import (
	"errors"
	"time"

	"github.com/locksim/locksim/sim"
)

// One command through go-redis v9.23.0 with its default options
// (options.go init; redis.go processWithRetry and _process; error.go
// shouldRetry; internal.RetryBackoff; internal/pool dialConn), the client
// that redsync v4.18.1's goredis/v9 pool hands every command to:
//
//   - a 5 s read timeout (ReadTimeout's default since it stopped being
//     3 s); the timed-out connection is closed, so a late reply is never
//     read;
//   - up to MaxRetries = 3 retries of a network error (a read timeout, a
//     closed or reset connection, a failed dial), each after
//     RetryBackoff(attempt, 10 ms, 1 s) = 10 ms + a uniform draw below
//     10 ms << attempt, at most 1 s;
//   - a dial that fails (refused, or no answer within DialTimeout = 5 s)
//     is tried DialerRetries = 5 times, DialerRetryTimeout = 100 ms
//     apart, before the attempt fails;
//   - a new connection (a process's first command to a node, and the
//     next one after an error closed the connection) is dialled and
//     greeted with HELLO 2 first; the dial waits for the context, so a
//     node that does not answer ends the attempt at the context's
//     deadline, where a command on an open connection waits its 5 s;
//   - the context: with ContextTimeoutEnabled false (the default) its
//     deadline never reaches the socket, so a read waits its full 5 s;
//     go-redis looks at it only while it dials and waits between
//     attempts, and gives up with the context's error when it ends there.
//
// Not modelled: the handshake and HELLO are one round trip here, bounded
// by the context (a lost HELLO reply waits 5 s in go-redis); go-redis
// first reuses an idle pooled connection whose server has gone (one
// retry spent on its EOF); one connection per process and node (redsync
// and redislock use one at a time); Script.Run's EVALSHA before EVAL.
const (
	goRedisReadTimeout   = 5 * time.Second
	goRedisDialTimeout   = 5 * time.Second
	goRedisMaxRetries    = 3
	goRedisMinBackoff    = 10 * time.Millisecond
	goRedisMaxBackoff    = time.Second
	goRedisDialRetries   = 5
	goRedisDialRetryWait = 100 * time.Millisecond
)

// errContextDeadline is the context's error once its deadline passed.
var errContextDeadline = errors.New("context deadline exceeded")

// goRedisCall runs one command as go-redis does (see above). deadline is
// the context's, on the process's monotonic clock; 0 is none.
func goRedisCall(t *sim.Thread, env Env, deadline time.Duration, node string, args ...string) (sim.Reply, error) {
	open := env.local(t.Process(), "go-redis-conns", func() any { return map[string]bool{} }).(map[string]bool)
	cfg := sim.ClientConfig{Timeout: goRedisReadTimeout, CancelOnTimeout: true}
	var err error
	for attempt := 0; attempt <= goRedisMaxRetries; attempt++ {
		if attempt > 0 && !sleepUntilDeadline(t, deadline, goRedisBackoff(t, attempt)) {
			return sim.Reply{}, errContextDeadline
		}
		if !open[node] {
			if err = goRedisDial(t, deadline, node); err != nil {
				continue
			}
			open[node] = true
		}
		var r sim.Reply
		if r, err = t.CallWith(cfg, node, args...); err == nil {
			return r, nil
		}
		open[node] = false // go-redis closes a connection after a network error
	}
	return sim.Reply{}, err
}

// goRedisDial opens a connection: the handshake and HELLO 2 as one round
// trip that waits for the context (and DialTimeout); a failed dial
// (refused, or timed out) is tried again, DialerRetries times in all,
// DialerRetryTimeout apart.
func goRedisDial(t *sim.Thread, deadline time.Duration, node string) error {
	for dial := 1; ; dial++ {
		cfg := sim.ClientConfig{Timeout: goRedisDialTimeout, CancelOnTimeout: true}
		if deadline > 0 {
			left := deadline - t.Monotonic()
			if left <= 0 {
				return errContextDeadline
			}
			cfg.Timeout = min(cfg.Timeout, left)
		}
		_, err := t.CallWith(cfg, node, "HELLO", "2")
		if err == nil || dial == goRedisDialRetries || !sleepUntilDeadline(t, deadline, goRedisDialRetryWait) {
			return err
		}
	}
}

// goRedisBackoff is internal.RetryBackoff(retry, 10 ms, 1 s).
func goRedisBackoff(t *sim.Thread, retry int) time.Duration {
	d := goRedisMinBackoff + time.Duration(t.Rand().Int64N(int64(goRedisMinBackoff<<retry)))
	return min(d, goRedisMaxBackoff)
}

// sleepUntilDeadline sleeps d, or until deadline (0: none) when that comes
// first, and reports whether the whole of d passed.
func sleepUntilDeadline(t *sim.Thread, deadline, d time.Duration) bool {
	if deadline > 0 {
		if left := deadline - t.Monotonic(); left < d {
			t.Sleep(left)
			return false
		}
	}
	t.Sleep(d)
	return true
}
