package sim

import (
	"errors"
	"strings"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// Master is the node name that resolves, per process, to the node the
// process currently believes is the master.
const Master = "master"

// ErrTimeout is returned when a command's reply did not arrive in time.
var ErrTimeout = errors.New("command timed out")

// ErrRefused is returned for a command to a crashed or restarting node:
// its host refuses the connection at once, as a real one does.
var ErrRefused = errors.New("connection refused")

// ErrUnknownParty is returned for a command to a node or service that does
// not exist.
var ErrUnknownParty = errors.New("unknown node or service")

// Call sends one Redis command to node and waits for its reply, with the
// process's timeout and retry policy. The reply is a Reply even for Redis
// errors; the error is for transport failures. A command to Master is
// routed, on every attempt, to the master the process knows then.
func (t *Thread) Call(node string, args ...string) (Reply, error) {
	return t.CallWith(t.p.Client, node, args...)
}

// CallWith is Call with another timeout and retry policy for this one
// command (Redisson sends some commands without retries; redsync gives
// each try a deadline).
func (t *Thread) CallWith(cfg ClientConfig, node string, args ...string) (Reply, error) {
	return t.CallThen(cfg, node, nil, args...)
}

// CallThen is CallWith as a future with a callback (a CompletableFuture's
// thenApply in an asynchronous client): then runs on the process's event
// loop when the call completes, before the caller resumes, and also when
// the caller was interrupted meanwhile. It receives what the caller would.
func (t *Thread) CallThen(cfg ClientConfig, node string, then func(Reply, error), args ...string) (Reply, error) {
	return t.call1(cfg, node, then, true, args)
}

// CallAsync sends the command as a future and returns at once (an
// asynchronous client's *Async method whose result nobody awaits): then,
// if set, runs when it completes.
func (t *Thread) CallAsync(cfg ClientConfig, node string, then func(Reply, error), args ...string) {
	if then == nil {
		then = func(Reply, error) {} // still a future: not late, not dropped
	}
	t.call1(cfg, node, then, false, args)
}

func (t *Thread) call1(cfg ClientConfig, node string, then func(Reply, error), wait bool, args []string) (Reply, error) {
	if node != Master && t.w.nodes[node] == nil {
		return Reply{}, ErrUnknownParty
	}
	c := t.w.alloc.rpc()
	c.cfg, c.to, c.toMaster, c.what, c.args, c.then = cfg, node, node == Master, strings.ToUpper(args[0]), args, then
	return t.roundTripThen(c, wait)
}

// refuse answers a request to a down node: the host's refusal travels
// back like a reply.
func (n *Node) refuse(t *Thread, what string, a *rpcAttempt) {
	n.w.rec.event(trace.Drop(t.p.Name, "to "+n.Name+" (down, refused): "+what).WithFault(n.downBy))
	a.fail(ErrRefused)
}

// Pipeline sends cmds to node as one batch (a pipeline, or Redisson's
// command batch): they travel together, run one after the other on
// arrival, and their replies come back together. A retry resends the
// whole batch, to the master the process knows then.
func (t *Thread) Pipeline(node string, cmds ...[]string) ([]Reply, error) {
	return t.PipelineWith(t.p.Client, node, cmds...)
}

// PipelineWith is Pipeline with another timeout and retry policy.
func (t *Thread) PipelineWith(cfg ClientConfig, node string, cmds ...[]string) ([]Reply, error) {
	return t.PipelineThen(cfg, node, nil, cmds...)
}

// PipelineThen is PipelineWith as a future with a callback (see
// CallThen).
func (t *Thread) PipelineThen(cfg ClientConfig, node string, then func([]Reply, error), cmds ...[]string) ([]Reply, error) {
	return t.pipeline(cfg, node, then, true, cmds)
}

// PipelineAsync sends the batch as a future and returns at once (see
// CallAsync).
func (t *Thread) PipelineAsync(cfg ClientConfig, node string, then func([]Reply, error), cmds ...[]string) {
	if then == nil {
		then = func([]Reply, error) {}
	}
	t.pipeline(cfg, node, then, false, cmds)
}

func (t *Thread) pipeline(cfg ClientConfig, node string, then func([]Reply, error), wait bool, cmds [][]string) ([]Reply, error) {
	if node != Master && t.w.nodes[node] == nil {
		return nil, ErrUnknownParty
	}
	if len(cmds) == 0 {
		return nil, nil
	}
	what := strings.ToUpper(cmds[0][0])
	for _, c := range cmds[1:] {
		what += "+" + strings.ToUpper(c[0])
	}
	var done func(Reply, error)
	if then != nil {
		done = func(r Reply, err error) { then(r.Array, err) }
	}
	r, err := t.roundTripThen(&rpc{cfg: cfg, to: node, toMaster: node == Master, what: what, then: done, serve: func(a *rpcAttempt) {
		n := t.w.nodes[a.party]
		if n.down {
			n.refuse(t, what, a)
			return
		}
		out := make([]Reply, len(cmds))
		var run func(i int)
		run = func(i int) {
			if i == len(cmds) {
				a.answer(Reply{Kind: '*', Array: out})
				return
			}
			n.execAsync(a.conn, t.Client(), cmds[i], replyFunc(func(r Reply) {
				out[i] = r
				if n.down { // the node crashed while a WAIT was pending
					return
				}
				run(i + 1)
			}))
		}
		run(0)
	}}, wait)
	if err != nil {
		return nil, err
	}
	return r.Array, nil
}

// Request sends a request to a service (a database, a storage) and waits
// for its answer. A database driver does not retry: one attempt, with the
// world's command timeout.
func (t *Thread) Request(service string, args ...string) (string, error) {
	s := t.w.services[service]
	if s == nil {
		return "", ErrUnknownParty
	}
	c := t.w.alloc.rpc()
	c.to, c.what, c.args, c.svc = service, args[0], args, s
	v, err := t.roundTrip(c)
	if err != nil {
		return "", err
	}
	return v.Str, nil
}

// ClientConfig is a process's command timeout and retry policy (Redisson:
// 3000 ms timeout, 3 retries, 1500 ms apart). A retry resends the command:
// if the first one reached the node, it runs twice.
type ClientConfig struct {
	Timeout       time.Duration // 0: the world's CommandTimeout
	Retries       int
	RetryInterval time.Duration
	// RetryMax, when set, makes the delay after attempt n (from 0)
	// Redisson's EqualJitterDelay(RetryInterval, RetryMax): d = min(
	// RetryInterval << n, RetryMax), then d/2 plus a uniform draw in
	// [0, d/2] ms.
	RetryMax time.Duration
	// CancelOnTimeout abandons an attempt at its timeout: a late reply to
	// it is dropped and the retry goes out regardless (Redisson cancels
	// the attempt's promise and resends after the retry delay; go-redis
	// closes the connection, so the reply is never read). Without it, the
	// first reply of any attempt completes the call.
	CancelOnTimeout bool
}

// RetryDelay is the pause before the retry that follows attempt n (from
// 0), drawn from the process's retry stream when the delay jitters.
func (t *Thread) RetryDelay(cfg ClientConfig, n int) time.Duration {
	if cfg.RetryMax <= 0 {
		return cfg.RetryInterval
	}
	base, maxMs := cfg.RetryInterval.Milliseconds(), cfg.RetryMax.Milliseconds()
	d := maxMs
	if n < 63 && base > 0 && base < maxMs && int64(1)<<n <= maxMs/base {
		d = min(base<<n, maxMs)
	}
	half := d / 2
	if half > 0 {
		half += t.w.streams.Get("retry/" + t.p.Name).Int64N(half + 1)
	}
	return time.Duration(half) * time.Millisecond
}
