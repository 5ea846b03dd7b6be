package protocols

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// Redisson RLock (seed 000, used by seed 001's buy() and seed 002
// section 4), for the releases of redisson_versions.go. The three scripts
// are verbatim from seed 000. The client steps follow RedissonLock and
// RedissonBaseLock at those tags:
//
//   - lock(): tryAcquire with the lockWatchdogTimeout lease (30 s); on
//     success scheduleExpirationRenewal; otherwise subscribe to
//     redisson_lock__channel:{name} and loop { tryAcquire; wait on the
//     entry's semaphore for the returned TTL }.
//   - tryLock(wait, lease): the same loop bounded by wait, no watchdog.
//   - unlock(): the unlock script, then cancelExpirationRenewal; a nil
//     reply is an IllegalMonitorStateException.
//   - the watchdog: a timer every lease/3 runs the renew script for the
//     first thread of the entry; 1 reschedules; 0 and errors depend on
//     the release (redisson_versions.go).
//   - from 3.16 on a master/replica deployment, each script is sent in a
//     batch followed by WAIT <available slaves> 1000 (the configured
//     replicas), with a 4000 ms batch timeout.
//
// One RedissonClient per process (its UUID is the id in every lock name
// <id>:<thread>); one pub/sub entry per process and lock name, whose
// semaphore gets one permit per unlock message, so one waiter per process
// wakes.

// The scripts, verbatim at each tag, and their fast paths are in
// redisson_scripts.go.

// redissonUnlockMessage is LockPubSub.UNLOCK_MESSAGE (0L).
const redissonUnlockMessage = "0"

// redissonSlavesSyncTimeout is the WAIT timeout of a synced batch.
const redissonSlavesSyncTimeout = "1000"

// redissonBatchTimeout is a synced batch's response timeout: the
// client's timeout plus the WAIT's (RedisCommonBatchExecutor).
const redissonBatchTimeout = 1000 * time.Millisecond

// redissonVersion selects the scripts and client behaviour of one
// release (redisson_versions.go).
type redissonVersion int

// ErrIllegalMonitorState is Redisson's IllegalMonitorStateException.
var ErrIllegalMonitorState = errors.New("IllegalMonitorStateException: attempt to unlock lock, not locked by current thread")

// ErrNoSyncedSlaves is newer Redisson's NoSyncedSlavesException.
var ErrNoSyncedSlaves = errors.New("None of slaves were synced")

// rclient is one RedissonClient in one process: its id, its pub/sub
// entries and its renewal state.
type rclient struct {
	node  string
	id    string
	subs  byName[*rsubEntry] // by channel
	renew byName[*rrenewal]  // 3.16 EXPIRATION_RENEWAL_MAP, by lock name (the entry name less the client's id)
	task  *rrenewTask        // newer Redisson's LockTask

	probed bool // newer Redisson: the WAIT/WAITAOF probe was sent
	slaves int  // newer Redisson: cached connected_slaves; -1 unknown

}

// lockName is getLockName(threadId) of the thread called th.
func (c *rclient) lockName(th string) string { return c.id + ":" + th }

// redissonClient is the process's client of version v on node, created
// on first use.
func redissonClient(t *sim.Thread, env Env, node string, v redissonVersion) *rclient {
	st := env.state()
	if st.redisson == nil {
		st.redisson = map[redissonClientKey]*rclient{}
	}
	key := redissonClientKey{t.Process(), node, v}
	c := st.redisson[key]
	if c == nil {
		c = &rclient{node: node, id: uuid(t), slaves: -1}
		st.redisson[key] = c
	}
	return c
}

// redissonClientKey names a process's client of one version on one node.
type redissonClientKey struct {
	p    *sim.Process
	node string
	v    redissonVersion
}

// rlock is one RLock object (client.getLock(name)).
type rlock struct {
	env   Env
	node  string
	name  string
	ver   redissonVersion
	wait  time.Duration // tryLock wait; -1: lock()
	lease time.Duration // explicit lease; -1: watchdog
	fence bool          // RFencedLock

	internalLease time.Duration // internalLockLeaseTime
	token         int64
	interruptibly bool // in lockInterruptibly()
}

func newRLock(env Env, node, name string, v redissonVersion, wait, lease time.Duration) *rlock {
	return &rlock{env: env, node: node, name: name, ver: v, wait: wait, lease: lease, internalLease: env.Lease}
}

// prefixName is RedissonObject.prefixName.
func prefixName(prefix, name string) string {
	if strings.Contains(name, "{") {
		return prefix + ":" + name
	}
	return prefix + ":{" + name + "}"
}

// client is the RedissonClient of the calling thread's process.
func (l *rlock) client(t *sim.Thread) *rclient { return redissonClient(t, l.env, l.node, l.ver) }

// channel is getChannelName(): redisson_lock__channel:{name}.
func (l *rlock) channel() string { return l.env.state().channel(l.name) }

// lockName is getLockName(threadId): <client id>:<thread>.
func (l *rlock) lockName(t *sim.Thread) string { return l.client(t).lockName(t.Name) }

func (l *rlock) Acquire(t *sim.Thread) (bool, error) {
	if l.wait < 0 {
		return l.lock(t)
	}
	return l.tryLock(t, l.wait)
}

func (l *rlock) Release(t *sim.Thread) (bool, error) { return l.unlock(t) }

// HeldByCurrentThread is isHeldByCurrentThread(): HEXISTS name lockName.
func (l *rlock) HeldByCurrentThread(t *sim.Thread) (bool, error) {
	r, err := t.Call(l.node, "HEXISTS", l.name, l.lockName(t))
	if err != nil {
		return false, err
	}
	return r.Int == 1, nil
}

// tryAcquire is tryAcquire(): one lock script. It returns acquired, or the
// TTL of the current holder's key.
func (l *rlock) tryAcquire(t *sim.Thread) (acquired bool, ttl int64, err error) {
	lease := l.internalLease
	if l.lease > 0 {
		lease = l.lease
	}
	switch {
	case l.ver.latestLine() && !l.fence:
		return l.tryAcquireLatest(t, lease) // its callback did the rest (onAcquired)
	case l.ver.latestLine():
		acquired, ttl, err = l.tryAcquireLatest(t, lease)
	default:
		var r sim.Reply
		r, err = l.evalWrite(t, l.tryLockInnerCmd(t, lease))
		if err != nil {
			return false, 0, err
		}
		acquired, ttl = r.IsNil(), r.Int
	}
	if err != nil || !acquired {
		return acquired, ttl, err
	}
	if l.lease > 0 {
		l.internalLease = l.lease
	} else {
		l.scheduleExpirationRenewal(t)
	}
	return true, 0, nil
}

// tryLockInnerCmd is tryLockInnerAsync's command: the lock script for t's
// lock name and lease.
func (l *rlock) tryLockInnerCmd(t *sim.Thread, lease time.Duration) []string {
	script := redissonLock316
	if l.ver == redisson3120 {
		script = redissonLock312
	}
	return evalCmd(script, []string{l.name}, ms(lease), l.lockName(t))
}

// evalCmd is EVAL script with keys and args.
func evalCmd(script string, keys []string, args ...string) []string {
	cmd := make([]string, 0, 3+len(keys)+len(args))
	return append(append(append(cmd, "EVAL", script, strconv.Itoa(len(keys))), keys...), args...)
}

// evalWrite is RedissonBaseLock.evalWriteAsync: the script alone
// (3.12.0, or no replicas), or from 3.16 a batch of the script and WAIT
// <replicas> 1000, retried as a whole, with the batch's longer timeout.
// 3.16 ignores the WAIT count; 3.17.0 fails the call when fewer replicas
// than it knows acknowledged. The replicas it knows are the entry's
// available slaves (MasterSlaveEntry.getAvailableSlaves): those the
// sentinel does not report s_down or with master_link_status:err
// (SentinelConnectionManager.checkSlavesChange, checkSlaveStatusWithSyncing
// on by default); with none, the script goes alone and is not checked.
func (l *rlock) evalWrite(t *sim.Thread, cmd []string) (sim.Reply, error) {
	n := t.World().AvailableReplicas()
	if !l.ver.batched() || n == 0 {
		r, err := t.Call(l.node, cmd...)
		if err == nil && r.IsErr() {
			err = errorReply(r)
		}
		return r, err
	}
	cfg := t.Process().Client
	cfg.Timeout += redissonBatchTimeout
	rs, err := t.PipelineWith(cfg, l.node, cmd, []string{"WAIT", strconv.Itoa(n), redissonSlavesSyncTimeout})
	if err != nil {
		return sim.Reply{}, err
	}
	r, w := rs[0], rs[1]
	switch {
	case r.IsErr():
		return r, errorReply(r)
	case w.IsErr():
		return r, errorReply(w)
	case l.ver.checksSyncedSlaves() && w.Int < int64(n):
		return r, unsyncedSlaves(w.Int, n)
	}
	return r, nil
}

// unsyncedSlaves is 3.17.0's IllegalStateException.
func unsyncedSlaves(synced int64, available int) error {
	return replyError("Only " + strconv.FormatInt(synced, 10) + " of " + strconv.Itoa(available) + " slaves were synced")
}

// lock is RedissonLock.lock(): wait without a bound.
func (l *rlock) lock(t *sim.Thread) (bool, error) {
	ok, ttl, err := l.tryAcquire(t)
	if err != nil || ok {
		return ok, err
	}
	c := l.client(t)
	e, err := c.subscribe(t, l)
	if err != nil {
		return false, err
	}
	defer c.unsubscribe(e)
	for {
		ok, ttl, err = l.tryAcquire(t)
		if err != nil || ok {
			return ok, err
		}
		if ttl >= 0 {
			e.latch.Acquire(t, time.Duration(ttl)*time.Millisecond)
		} else {
			e.latch.Acquire(t, -1)
		}
		if err := l.latchInterrupted(t, l.interruptibly); err != nil {
			return false, err
		}
	}
}

// AcquireInterruptibly is lockInterruptibly() (tryLock is interruptible
// already).
func (l *rlock) AcquireInterruptibly(t *sim.Thread) (bool, error) {
	l.interruptibly = true
	defer func() { l.interruptibly = false }()
	return l.Acquire(t)
}

// latchInterrupted is what an interrupt does to a wait on the entry's
// semaphore, judged when the wait ends (a semaphore wait is not
// interruptible in the sim): lockInterruptibly() and tryLock() throw
// InterruptedException; lock() catches it and waits again.
func (l *rlock) latchInterrupted(t *sim.Thread, throws bool) error {
	if t.Interrupted() && throws {
		return sim.ErrInterrupted
	}
	return nil
}

// tryLock is RedissonLock.tryLock(waitTime, leaseTime): the same loop,
// bounded by waitTime as measured on the process's wall clock.
func (l *rlock) tryLock(t *sim.Thread, wait time.Duration) (bool, error) {
	left := wait
	current := t.Now()
	ok, ttl, err := l.tryAcquire(t)
	if err != nil || ok {
		return ok, err
	}
	left -= t.Now() - current
	if left <= 0 {
		return false, nil // acquireFailed
	}
	current = t.Now()
	c := l.client(t)
	e, err := c.subscribe(t, l)
	if err != nil {
		return false, nil // the subscription did not complete in time
	}
	defer c.unsubscribe(e)
	left -= t.Now() - current
	if left <= 0 {
		return false, nil
	}
	for {
		current = t.Now()
		ok, ttl, err = l.tryAcquire(t)
		if err != nil || ok {
			return ok, err
		}
		left -= t.Now() - current
		if left <= 0 {
			return false, nil
		}
		current = t.Now()
		if d := time.Duration(ttl) * time.Millisecond; ttl >= 0 && d < left {
			e.latch.Acquire(t, d)
		} else {
			e.latch.Acquire(t, left)
		}
		if err := l.latchInterrupted(t, true); err != nil {
			return false, err
		}
		left -= t.Now() - current
		if left <= 0 {
			return false, nil
		}
	}
}

// unlock is RLock.unlock().
func (l *rlock) unlock(t *sim.Thread) (bool, error) {
	if l.ver.latestLine() {
		return l.unlockLatest(t)
	}
	r, err := l.evalWrite(t, l.unlockInnerCmd(t))
	if !(l.ver.unlockNilKeepsEntry() && err == nil && r.IsNil()) {
		l.cancelExpirationRenewal(t, t.Name)
	}
	return l.unlocked(t, r, err)
}

// unlockInnerCmd is unlockInnerAsync's command: the unlock script for t's
// lock name.
func (l *rlock) unlockInnerCmd(t *sim.Thread) []string {
	return evalCmd(redissonUnlock316, []string{l.name, l.channel()},
		redissonUnlockMessage, ms(l.internalLease), l.lockName(t))
}

// unlocked reads an unlock script's answer: nil means the thread did not
// hold the lock (IllegalMonitorStateException, noted in the trace).
func (l *rlock) unlocked(t *sim.Thread, r sim.Reply, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	if r.IsNil() {
		t.Note(l.name, ErrIllegalMonitorState.Error()+" by node id: "+l.client(t).id+" thread-id: "+t.Name)
		return false, nil
	}
	return true, nil
}

// rsubEntry is a RedissonLockEntry: one per process and channel, shared
// by the process's waiters, with a semaphore that each unlock message
// releases once.
type rsubEntry struct {
	channel string
	count   int
	latch   *sim.Sem
	sub     *sim.Subscription
	ready   bool
	err     error
	waiting *sim.Sem // threads waiting for the first SUBSCRIBE to complete; nil until one does
}

// subscribe is PublishSubscribe.subscribe to l's channel: the first
// waiter of the process sends SUBSCRIBE; later ones share the entry (and
// wait for it to be subscribed).
func (c *rclient) subscribe(t *sim.Thread, l *rlock) (*rsubEntry, error) {
	channel := l.channel()
	if e := c.subs.get(channel); e != nil {
		e.count++
		if !e.ready && e.err == nil {
			if e.waiting == nil {
				e.waiting = t.Process().NewSem(0)
			}
			e.waiting.Acquire(t, -1)
		}
		if e.err != nil {
			return nil, e.err
		}
		return e, nil
	}
	p := t.Process()
	e := &rsubEntry{channel: channel, count: 1, latch: p.NewSem(0)}
	c.subs.set(channel, e)
	s, err := t.SubscribeTo(c.node, channel, e)
	if err != nil {
		e.err = err
		if c.subs.get(channel) == e {
			c.subs.del(channel)
		}
		e.wakeWaiting()
		return nil, err
	}
	e.sub, e.ready = s, true
	e.wakeWaiting()
	return e, nil
}

// Receive is the entry's listener: an unlock message releases a waiter.
func (e *rsubEntry) Receive(msg string) {
	if msg == redissonUnlockMessage {
		e.latch.Release(1)
	}
}

// wakeWaiting wakes the threads waiting for the first SUBSCRIBE.
func (e *rsubEntry) wakeWaiting() {
	if e.waiting != nil {
		e.waiting.Release(e.waiting.Waiting())
	}
}

// unsubscribe drops one user of the entry; the last one unsubscribes.
func (c *rclient) unsubscribe(e *rsubEntry) {
	e.count--
	if e.count > 0 {
		return
	}
	if e.sub != nil {
		e.sub.Unsubscribe()
	}
	if c.subs.get(e.channel) == e {
		c.subs.del(e.channel)
	}
}

// rrenewal is a 3.16 ExpirationEntry: the threads holding the lock (in
// order, with counts) and the pending timer.
type rrenewal struct {
	holds []rhold
	timer *rtimer
	stale bool // its renewal stopped but the entry stayed in the map
}

// rhold is a thread's holds of the lock.
type rhold struct {
	thread string
	n      int
}

// rtimer is a Netty Timeout: cancel() stops it if it has not fired.
type rtimer struct{ cancelled bool }

func (e *rrenewal) index(th string) int {
	for i, h := range e.holds {
		if h.thread == th {
			return i
		}
	}
	return -1
}

func (e *rrenewal) add(th string) {
	if i := e.index(th); i >= 0 {
		e.holds[i].n++
		return
	}
	e.holds = append(e.holds, rhold{th, 1})
}

func (e *rrenewal) remove(th string) {
	i := e.index(th)
	if i < 0 {
		return
	}
	if e.holds[i].n--; e.holds[i].n == 0 {
		e.holds = append(e.holds[:i:i], e.holds[i+1:]...)
	}
}

// scheduleExpirationRenewal starts the watchdog of the entry, or joins it.
func (l *rlock) scheduleExpirationRenewal(t *sim.Thread) {
	if l.ver.latestLine() {
		l.scheduleRenewalLatest(t)
		return
	}
	c := l.client(t)
	if old := c.renew.get(l.name); old != nil {
		if old.stale {
			t.Note(l.name, "watchdog not started: a stopped renewal entry of an earlier hold is still in EXPIRATION_RENEWAL_MAP")
		}
		old.add(t.Name)
		return
	}
	e := &rrenewal{}
	e.add(t.Name)
	c.renew.set(l.name, e)
	l.renewExpiration(t, c)
}

// renewExpiration schedules one watchdog tick: after lease/3 it renews
// for the entry's first thread and, on 1, schedules the next tick.
func (l *rlock) renewExpiration(t *sim.Thread, c *rclient) {
	ee := c.renew.get(l.name)
	if ee == nil {
		return
	}
	tm := &rtimer{}
	ee.timer = tm
	lease := l.internalLease
	t.Go("redisson-watchdog", func(w *sim.Thread) {
		w.Sleep(lease / 3)
		if tm.cancelled {
			return
		}
		ent := c.renew.get(l.name)
		if ent == nil || len(ent.holds) == 0 {
			return
		}
		owner := c.lockName(ent.holds[0].thread)
		op := w.Invoke(model.OpRenew, l.name, owner)
		r, err := l.evalWrite(w, evalCmd(redissonRenew316, []string{l.name}, ms(lease), owner))
		w.Return(op, result(err == nil && r.Int == 1, err, model.ResNotOwner))
		switch {
		case err != nil && l.ver.renewErrorKeepsEntry():
			w.Note(l.name, "watchdog: can't update lock expiration: "+err.Error()+"; not rescheduled, the renewal entry stays")
			ent.stale = true
		case err != nil:
			w.Note(l.name, "watchdog: can't update lock expiration: "+err.Error())
			c.renew.del(l.name)
		case r.Int == 1:
			l.renewExpiration(w, c)
		case l.ver.renewZeroKeepsEntry():
			w.Note(l.name, "watchdog: renewal returned 0, not rescheduled; the renewal entry stays")
			ent.stale = true
		default:
			w.Note(l.name, "watchdog: renewal returned 0, renewal cancelled")
			l.cancelExpirationRenewal(w, "")
		}
	})
}

// cancelExpirationRenewal removes th from the entry (all threads when th
// is empty) and stops the timer when none is left.
func (l *rlock) cancelExpirationRenewal(t *sim.Thread, th string) {
	if l.ver.latestLine() {
		l.cancelRenewalLatest(t, th)
		return
	}
	c := l.client(t)
	e := c.renew.get(l.name)
	if e == nil {
		return
	}
	if th != "" {
		e.remove(th)
	}
	if th == "" || len(e.holds) == 0 {
		if e.timer != nil {
			e.timer.cancelled = true
		}
		c.renew.del(l.name)
	}
}
