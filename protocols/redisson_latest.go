package protocols

import (
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// Newer Redisson: the master branch at 66863978b (2026-08-21, after tag
// redisson-4.7.0): RedissonLock.tryLockInnerAsync/unlockInnerAsync,
// RedissonBaseLock.unlockInnerAsync, renewal.LockTask,
// CommandAsyncService.syncedEval, ServiceManager.execute), so users see
// what changed since 3.16:
//
//   - one combined acquire condition (exists == 0 or hexists == 1);
//   - the unlock script keeps its answer in an unlock latch key
//     redisson_unlock_latch:{name}:<request id> for
//     (timeout + retryInterval) * retryAttempts ms, so that a retried
//     unlock whose first attempt ran is answered with the cached result
//     instead of an IllegalMonitorStateException; the client deletes the
//     latch once it has the answer;
//   - the acquire and the unlock scripts go through syncedEvalNoRetry: on
//     a single server they are sent without command retries (a lost
//     reply is not retried into a second hold); on master/replica
//     deployments the script and WAIT <connected_slaves> 1000 are one
//     batch, which the batch executor retries like any command after its
//     4000 ms timeout (3000 ms plus the WAIT's 1000 ms);
//   - unlock() draws one request id, kept across ServiceManager.execute's
//     retries (the latch answers a retry whose first attempt ran);
//   - the watchdog is one renewal task per client: every
//     lockWatchdogTimeout/3 it renews every held lock in one script
//     (syncedEval, with retries), drops the locks the script found gone,
//     and keeps rescheduling after errors;
//   - the replica count is connected_slaves from INFO, read once per
//     client and again after a WAIT answered another count
//     (MasterSlaveEntry.availableSlaves starts at -1), after a one-time
//     probe batch WAIT 0 0 + WAITAOF 0 0 0 that learns which of the two
//     the server knows (the sim's Redis has no WAITAOF);
//   - when no replica acknowledged, the acquire is undone (unlock) and
//     fails with "None of slaves were synced", and ServiceManager.execute
//     retries the whole acquire (and unlock) up to retryAttempts times.
//
// Client defaults of the newer line (config.BaseConfig): timeout
// 3000 ms, retryAttempts 4, retryDelay EqualJitterDelay(1000 ms, 2 s);
// a timed-out attempt is cancelled and resent (RedisExecutor).

// The scripts at that commit (the acquire, the unlock with its latch, and
// renewal.LockTask's script, which renews many locks at once) and their
// fast paths are in redisson_latest_scripts.go.

// redissonClientLatest is the newer default client configuration.
var redissonClientLatest = sim.ClientConfig{Timeout: 3000 * time.Millisecond, Retries: 4,
	RetryInterval: 1000 * time.Millisecond, RetryMax: 2 * time.Second, CancelOnTimeout: true}

// redissonRenewBatch is how many locks one renewal script renews at most.
const redissonRenewBatch = 100

func init() {
	register(Protocol{
		Name:    "redisson-latest",
		Source:  "Redisson master 66863978b (after 4.7.0): RedissonLock.lock(), unlock latch, renewal.LockTask, syncedEval",
		Summary: "newer Redisson RLock.lock(): combined acquire, unlock latch, renewal task, replica sync check",
		Lease:   30 * time.Second,
		Renews:  true,
		Client:  redissonClientLatest,
		Steps:   redissonSteps,
		Scripts: redissonLatestScripts,
		New: func(env Env, key string) Lock {
			return newRLock(env, env.Master, key, redissonLatest, -1, -1)
		},
	})
}

// latchTimeout is (timeout + retryDelay.calcDelay(retryAttempts)) *
// retryAttempts in ms.
func latchTimeout(t *sim.Thread) string {
	c := t.Process().Client
	d := (c.Timeout + t.RetryDelay(c, c.Retries)) * time.Duration(c.Retries)
	return strconv.FormatInt(max(d.Milliseconds(), 1), 10)
}

// synced is CommandAsyncService.syncedEval: on a single server the
// script alone (without command retries when noRetry); with replicas a
// batch of the script and WAIT <connected_slaves> 1000, retried as a
// whole whatever noRetry says; no replica acknowledging is
// ErrNoSyncedSlaves.
func (l *rlock) synced(t *sim.Thread, noRetry bool, script string, keys []string, args ...string) (sim.Reply, error) {
	return l.syncedThen(t, noRetry, nil, script, keys, args...)
}

// syncedThen is synced whose future runs then (a thenApply or handle of
// the caller) on the client's event loop when the reply arrives, also
// after the caller was interrupted; the caller's get() then re-sets the
// thread's interrupt status (CommandAsyncService.get). The replica count
// is read before, on the calling thread (in Redisson it is part of the
// asynchronous chain: an interrupt there ends the chain in the model, as
// a failed read does, with then called on the error).
func (l *rlock) syncedThen(t *sim.Thread, noRetry bool, then func(sim.Reply, error), script string, keys []string, args ...string) (sim.Reply, error) {
	cmd := evalCmd(script, keys, args...)
	cfg := t.Process().Client
	if replicas(t) == 0 {
		if noRetry {
			cfg.Retries = 0
		}
		var cb func(sim.Reply, error)
		if then != nil {
			cb = func(r sim.Reply, err error) { then(scriptResult(r, err)) }
		}
		r, err := t.CallThen(cfg, l.node, cb, cmd...)
		return reinterrupt(t)(scriptResult(r, err))
	}
	c := l.client(t)
	n, err := c.availableSlaves(t)
	if err != nil {
		if then != nil {
			then(sim.Reply{}, err) // the chain failed: its callbacks run
		}
		return reinterrupt(t)(sim.Reply{}, err)
	}
	cfg.Timeout += redissonBatchTimeout
	var res acquireReply
	batch := func(rs []sim.Reply, err error) {
		res.r, res.err = c.syncedBatch(n, rs, err)
		if then != nil {
			then(res.r, res.err)
		}
	}
	var cb func([]sim.Reply, error)
	if then != nil {
		cb = batch
	}
	rs, err := t.PipelineThen(cfg, l.node, cb, cmd, []string{"WAIT", strconv.Itoa(n), redissonSlavesSyncTimeout})
	if err == sim.ErrInterrupted {
		return reinterrupt(t)(sim.Reply{}, err)
	}
	if then == nil {
		batch(rs, err)
	}
	return res.r, res.err
}

type acquireReply struct {
	r   sim.Reply
	err error
}

// scriptResult turns a script's error reply into an error.
func scriptResult(r sim.Reply, err error) (sim.Reply, error) {
	if err == nil && r.IsErr() {
		err = errorReply(r)
	}
	return r, err
}

// syncedBatch reads the replies of a script + WAIT batch sent with n
// replicas known.
func (c *rclient) syncedBatch(n int, rs []sim.Reply, err error) (sim.Reply, error) {
	if err != nil {
		return sim.Reply{}, err
	}
	r, w := rs[0], rs[1]
	if r.IsErr() {
		return r, errorReply(r)
	}
	if w.IsErr() {
		return r, errorReply(w)
	}
	if w.Int != int64(n) {
		c.slaves = -1 // read connected_slaves again next time
	}
	if w.Int == 0 && n > 0 {
		return r, ErrNoSyncedSlaves
	}
	return r, nil
}

// reinterrupt is CommandAsyncService.get's catch of InterruptedException:
// it interrupts the thread again before throwing.
func reinterrupt(t *sim.Thread) func(sim.Reply, error) (sim.Reply, error) {
	return func(r sim.Reply, err error) (sim.Reply, error) {
		if err == sim.ErrInterrupted {
			t.Interrupt()
		}
		return r, err
	}
}

// availableSlaves is MasterSlaveEntry.getAvailableSlaves, filled from
// INFO's connected_slaves when unknown, after the client's one-time WAIT
// support probe.
func (c *rclient) availableSlaves(t *sim.Thread) (int, error) {
	if !c.probed {
		if _, err := t.Pipeline(c.node, []string{"WAIT", "0", "0"}, []string{"WAITAOF", "0", "0", "0"}); err != nil {
			return 0, err
		}
		c.probed = true
	}
	if c.slaves >= 0 {
		return c.slaves, nil
	}
	r, err := t.Call(c.node, "INFO", "ALL")
	if err != nil {
		return 0, err
	}
	c.slaves = 0
	for _, line := range strings.Split(r.Str, "\r\n") {
		if v, ok := strings.CutPrefix(line, "connected_slaves:"); ok {
			c.slaves, _ = strconv.Atoi(v)
		}
	}
	return c.slaves, nil
}

type replyError string

func (e replyError) Error() string { return string(e) }

func errorReply(r sim.Reply) error { return replyError(r.Str) }

// execute is ServiceManager.execute: op again after retryDelay while it
// fails with ErrNoSyncedSlaves, at most retryAttempts more times.
func execute[T any](t *sim.Thread, op func() (T, error)) (T, error) {
	cfg := t.Process().Client
	for attempt := 0; ; attempt++ {
		v, err := op()
		if err != ErrNoSyncedSlaves || attempt >= cfg.Retries {
			return v, err
		}
		t.Sleep(t.RetryDelay(cfg, attempt+1))
	}
}

type acquireResult struct {
	ok  bool
	ttl int64
}

// tryAcquireLatest sends the combined lock script (RFencedLock's with
// INCR for a fenced lock) without command retries; on "None of slaves
// were synced" it unlocks (handleNoSync) and ServiceManager.execute
// retries. What tryAcquireAsync's thenApply does on success (start the
// watchdog, or keep a fixed lease) runs in the script's callback, when
// the reply arrives (onAcquired), so an interrupted caller does not stop
// it: Redisson #7272. With PR #7277 the watchdog entry is registered
// before the script, and an interrupted caller drops it and unlocks.
func (l *rlock) tryAcquireLatest(t *sim.Thread, lease time.Duration) (bool, int64, error) {
	if l.fence {
		// RFencedLock.tryLockInnerAsync: syncedEvalNoRetry, neither
		// handleNoSync nor ServiceManager.execute.
		res, err := l.tryAcquireFenced(t, lease)
		return res.ok, res.ttl, err
	}
	pr := l.ver == redissonPR7277 && l.lease <= 0
	res, err := execute(t, func() (acquireResult, error) {
		if pr {
			l.scheduleRenewalLatest(t)
		}
		r, err := l.syncedThen(t, true, l.onAcquired(t, pr), redissonLockLatest, []string{l.name}, ms(lease), l.lockName(t))
		if err == ErrNoSyncedSlaves {
			l.unlockInner(t, randomHex(t, 16), nil) // handleNoSync: undo whatever the script did
		}
		if err != nil {
			return acquireResult{}, err
		}
		return acquireResult{ok: r.IsNil(), ttl: r.Int}, nil
	})
	if pr && err == sim.ErrInterrupted {
		// #7277's tryAcquireAsync0: get() cancelled the future.
		l.cancelRenewalLatest(t, t.Name)
		l.unlockAsync(t)
	}
	return res.ok, res.ttl, err
}

// onAcquired is tryAcquireAsync's callback on the script's reply: a
// fixed lease is kept for unlock, a watchdog hold starts its renewal
// (#7277: was registered before, and is cancelled unless acquired).
func (l *rlock) onAcquired(t *sim.Thread, pr bool) func(sim.Reply, error) {
	return func(r sim.Reply, err error) {
		acquired := err == nil && r.IsNil()
		switch {
		case acquired && l.lease > 0:
			l.internalLease = l.lease
		case pr && !acquired:
			l.cancelRenewalLatest(t, t.Name)
		case acquired && !pr:
			l.scheduleExpirationRenewal(t)
		}
	}
}

// unlockLatest is RedissonBaseLock.unlockAsync: one request id, then
// ServiceManager.execute around unlockAsync0, which cancels the renewal
// in the script's callback (PR #7277: before sending the script).
func (l *rlock) unlockLatest(t *sim.Thread) (bool, error) {
	id := randomHex(t, 16)
	r, err := execute(t, func() (sim.Reply, error) {
		if l.ver == redissonPR7277 {
			l.cancelRenewalLatest(t, t.Name)
			return l.unlockInner(t, id, nil)
		}
		return l.unlockInner(t, id, func(sim.Reply, error) { l.cancelRenewalLatest(t, t.Name) })
	})
	return l.unlocked(t, r, err)
}

// unlockInner is unlockInnerAsync(threadId, requestId): the latch
// script (syncedEvalNoRetry), whose callback sends the DEL of the latch
// without waiting for it, then runs then.
func (l *rlock) unlockInner(t *sim.Thread, id string, then func(sim.Reply, error)) (sim.Reply, error) {
	keys, args, done := l.unlockScript(t, id, then)
	return l.syncedThen(t, true, done, redissonUnlockLatest, keys, args...)
}

// unlockScript is the unlock script's keys and arguments for request id,
// and its callback: the latch DEL, then then.
func (l *rlock) unlockScript(t *sim.Thread, id string, then func(sim.Reply, error)) ([]string, []string, func(sim.Reply, error)) {
	latch := prefixName("redisson_unlock_latch", l.name) + ":" + id
	node := l.node
	done := func(r sim.Reply, err error) {
		if err == nil {
			// Not awaited, but not a daemon either: the command is sent.
			t.Process().Go(t.Name+"-latch-del", func(d *sim.Thread) { d.Call(node, "DEL", latch) })
		}
		if then != nil {
			then(r, err)
		}
	}
	return []string{l.name, l.channel(), latch},
		[]string{redissonUnlockMessage, ms(l.internalLease), l.lockName(t), "PUBLISH", latchTimeout(t)}, done
}

// unlockAsync is #7277's unlockAsync(threadId) after a cancelled
// acquire: the unlock script sent and not awaited. With replicas it goes
// with WAIT of the replica count last read (the asynchronous INFO read of
// a client that has none is not modelled: the script then goes alone).
func (l *rlock) unlockAsync(t *sim.Thread) {
	keys, args, done := l.unlockScript(t, randomHex(t, 16), nil)
	cmd := append(append([]string{"EVAL", redissonUnlockLatest, strconv.Itoa(len(keys))}, keys...), args...)
	cfg := t.Process().Client
	cfg.Retries = 0
	if n := l.client(t).slaves; replicas(t) > 0 && n > 0 {
		cfg.Timeout += redissonBatchTimeout
		t.PipelineAsync(cfg, l.node, func(rs []sim.Reply, err error) {
			if err == nil {
				err = scriptErr(rs[0])
			}
			done(sim.Reply{}, err)
		}, cmd, []string{"WAIT", strconv.Itoa(n), redissonSlavesSyncTimeout})
		return
	}
	t.CallAsync(cfg, l.node, func(r sim.Reply, err error) { done(scriptResult(r, err)) }, cmd...)
}

// scriptErr is a script's error reply as an error.
func scriptErr(r sim.Reply) error {
	_, err := scriptResult(r, nil)
	return err
}

// rrenewTask is renewal.LockTask: one per client, renewing every held
// lock of the client, up to redissonRenewBatch locks a script.
type rrenewTask struct {
	running bool
	names   []string // insertion order of held lock names
	entries map[string]*rrenewal
	lease   time.Duration
}

func (c *rclient) renewTask() *rrenewTask {
	if c.task == nil {
		c.task = &rrenewTask{entries: map[string]*rrenewal{}}
	}
	return c.task
}

// scheduleRenewalLatest is LockTask.add.
func (l *rlock) scheduleRenewalLatest(t *sim.Thread) {
	c := l.client(t)
	k := c.renewTask()
	k.lease = l.internalLease
	if e := k.entries[l.name]; e != nil {
		e.add(t.Name)
		return
	}
	e := &rrenewal{}
	e.add(t.Name)
	k.entries[l.name] = e
	k.names = append(k.names, l.name)
	if !k.running {
		k.running = true
		l.scheduleTask(t, c, k)
	}
}

// scheduleTask is RenewalTask.schedule: one run after lease/3, which
// schedules the next whatever happened.
func (l *rlock) scheduleTask(t *sim.Thread, c *rclient, k *rrenewTask) {
	if !k.running {
		return
	}
	t.Go("redisson-renewal", func(w *sim.Thread) {
		w.Sleep(k.lease / 3)
		l.runTask(w, c, k)
		l.scheduleTask(w, c, k)
	})
}

// runTask renews every entry, redissonRenewBatch a script, and cancels the
// entries whose lock the script did not find.
func (l *rlock) runTask(t *sim.Thread, c *rclient, k *rrenewTask) {
	names := append([]string(nil), k.names...)
	for len(names) > 0 {
		var keys, args []string
		args = append(args, ms(k.lease))
		var owners []string
		for len(names) > 0 && len(keys) < redissonRenewBatch {
			name := names[0]
			names = names[1:]
			e := k.entries[name]
			if e == nil || len(e.holds) == 0 {
				continue
			}
			keys = append(keys, name)
			args = append(args, c.lockName(e.holds[0].thread))
			owners = append(owners, e.holds[0].thread)
		}
		if len(keys) == 0 {
			return
		}
		first := &rlock{env: l.env, node: c.node, name: keys[0], ver: l.ver}
		r, err := first.synced(t, false, redissonRenewLatest, keys, args...)
		if err != nil {
			t.Note(keys[0], "renewal: can't update locks expiration: "+err.Error())
			return
		}
		for i, key := range keys {
			if i < len(r.Array) && r.Array[i].Int == 1 {
				continue
			}
			t.Note(key, "renewal: lock gone, renewal cancelled")
			cancelTaskEntry(k, key, owners[i])
		}
	}
}

// cancelRenewalLatest is LockTask.cancelExpirationRenewal for l.
func (l *rlock) cancelRenewalLatest(t *sim.Thread, th string) {
	c := l.client(t)
	if c.task == nil {
		return
	}
	cancelTaskEntry(c.task, l.name, th)
}

func cancelTaskEntry(k *rrenewTask, name, th string) {
	e := k.entries[name]
	if e == nil {
		return
	}
	if th != "" {
		e.remove(th)
	}
	if th == "" || len(e.holds) == 0 {
		delete(k.entries, name)
		for i, x := range k.names {
			if x == name {
				k.names = append(k.names[:i:i], k.names[i+1:]...)
				break
			}
		}
	}
	if len(k.entries) == 0 {
		k.running = false // stop(): the pending timer runs once more and stops
	}
}
