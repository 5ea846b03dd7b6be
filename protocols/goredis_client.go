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
//   - a dial the host refuses is dialled again DialerRetries = 5 times,
//     DialerRetryTimeout = 100 ms apart, before the attempt fails;
//   - the context: with ContextTimeoutEnabled false (the default) its
//     deadline never reaches the socket, so a read waits its full 5 s;
//     go-redis looks at it only while it waits between attempts and
//     dials, and gives up with the context's error when it ends there.
//
// Not modelled: go-redis first reuses an idle pooled connection whose
// server has gone (one retry spent on its EOF); Script.Run's EVALSHA
// before EVAL.
const (
	goRedisReadTimeout   = 5 * time.Second
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
func goRedisCall(t *sim.Thread, deadline time.Duration, node string, args ...string) (sim.Reply, error) {
	cfg := sim.ClientConfig{Timeout: goRedisReadTimeout, CancelOnTimeout: true}
	var err error
	for attempt := 0; attempt <= goRedisMaxRetries; attempt++ {
		if attempt > 0 && !sleepUntilDeadline(t, deadline, goRedisBackoff(t, attempt)) {
			return sim.Reply{}, errContextDeadline
		}
		var r sim.Reply
		for dial := 1; ; dial++ {
			r, err = t.CallWith(cfg, node, args...)
			if err != sim.ErrRefused || dial == goRedisDialRetries ||
				!sleepUntilDeadline(t, deadline, goRedisDialRetryWait) {
				break
			}
		}
		if err == nil {
			return r, nil
		}
	}
	return sim.Reply{}, err
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
