package checker

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

const (
	acq, rel = model.OpAcquire, model.OpRelease
	ok       = model.ResOK
)

// causeCase is one handcrafted history: a violation of one cause, or the
// legal history that looks like it (want == "").
type causeCase struct {
	name    string
	trace   func() *trace.Trace
	want    string   // the cause; "" for a legal history
	reason  string   // for premature expiry
	clients []string // of the classified violation
	nodes   []string // where the first holder's key vanished
	cites   []string // event kinds the explanation must cite
	lease   bool     // the lease-aware check must fail too
	prop    string   // the violation's property; mutual exclusion if empty
}

func TestCauses(t *testing.T) {
	for _, c := range causeCases {
		t.Run(c.name, func(t *testing.T) {
			tr := c.trace()
			res := Check(tr, Options{LeaseMs: 10000})
			if c.want == "" {
				if res.Verdict != VerdictOK || len(res.Violations) != 0 {
					t.Fatalf("verdict %s, want ok: %+v", res.Verdict, res.Violations)
				}
				return
			}
			if res.Verdict != VerdictViolation {
				t.Fatalf("verdict %s, want violation", res.Verdict)
			}
			v, found := findViolation(res.Violations, c.want, c.clients)
			if !found {
				t.Fatalf("no %s violation between %v in %+v", c.want, c.clients, res.Violations)
			}
			prop := cmp.Or(c.prop, PropMutex)
			if v.Property != prop || v.Reason != c.reason {
				t.Errorf("property %s reason %q, want %s %q", v.Property, v.Reason, prop, c.reason)
			}
			for _, other := range res.Violations {
				if other.Property == PropMutex && other.Cause == CauseForeignRenewal {
					t.Errorf("a foreign renewal under mutual exclusion: %+v", other)
				}
			}
			if c.nodes != nil && !slices.Equal(v.Nodes, c.nodes) {
				t.Errorf("nodes %v, want %v", v.Nodes, c.nodes)
			}
			checkExplained(t, tr, v, c.cites)
			if got := checkedResult(res, "lease-mutex") == VerdictViolation; got != c.lease {
				t.Errorf("lease-mutex violation = %v, want %v (%+v)", got, c.lease, res.Checked)
			}
			for _, other := range res.Violations {
				if other.Cause == CauseUnexplained {
					t.Errorf("unexplained violation: %+v", other)
				}
			}
		})
	}
}

func findViolation(vs []Violation, cause string, clients []string) (Violation, bool) {
	for _, v := range vs {
		if v.Cause == cause && (clients == nil || slices.Equal(v.Clients, clients)) {
			return v, true
		}
	}
	return Violation{}, false
}

// checkExplained checks that an explanation names the clients, the key
// and times, and cites valid events of the kinds given.
func checkExplained(t *testing.T, tr *trace.Trace, v Violation, kinds []string) {
	t.Helper()
	for _, c := range v.Clients {
		if !strings.Contains(v.Explanation, c) {
			t.Errorf("explanation does not name %s: %s", c, v.Explanation)
		}
	}
	if !strings.Contains(v.Explanation, v.Key) || !strings.Contains(v.Explanation, "t=") {
		t.Errorf("explanation lacks the key or times: %s", v.Explanation)
	}
	for _, n := range v.Nodes {
		if !strings.Contains(v.Explanation, n) {
			t.Errorf("explanation does not cite node %s: %s", n, v.Explanation)
		}
	}
	cited := map[string]bool{}
	for _, i := range v.Events {
		if i < 0 || i >= len(tr.Events) {
			t.Fatalf("event index %d out of range", i)
		}
		cited[tr.Events[i].Kind] = true
	}
	for _, k := range kinds {
		if !cited[k] {
			t.Errorf("no %s event cited in %v: %s", k, v.Events, v.Explanation)
		}
	}
}

func checkedResult(res *Result, model string) string {
	for _, c := range res.Checked {
		if c.Model == model {
			return c.Result
		}
	}
	return ""
}

// redlock creates key on each node for client.
func (b *tb) redlock(at float64, client, key string, nodes ...string) *tb {
	for _, n := range nodes {
		b.setnx(at, "redis-"+n, client, key, "10")
	}
	return b
}

func (b *tb) unlockAll(at float64, client, key string, deleted map[string]bool, nodes ...string) *tb {
	for _, n := range nodes {
		b.del(at, "redis-"+n, client, key, deleted[n])
	}
	return b
}

var all = map[string]bool{"a": true, "b": true, "c": true, "d": true, "e": true}

var causeCases = []causeCase{
	{
		name: "premature expiry: holder paused", want: CausePrematureExpiry, reason: ReasonPaused,
		clients: []string{"c1/t1", "c2/t1"}, nodes: []string{"redis"}, cites: []string{trace.EvPause, trace.EvExpire},
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "10")
			b.pause(1, "c1", 20).expire(10.1, "redis", "k")
			b.op("c2/t1", acq, "k", ok, 10.2, 10.3).setnx(10.25, "redis", "c2/t1", "k", "10")
			b.op("c2/t1", rel, "k", ok, 15, 15.1).del(15.05, "redis", "c2/t1", "k", true)
			b.op("c1/t1", rel, "k", model.ResNotOwner, 21, 21.1).del(21.05, "redis", "c1/t1", "k", false)
			return b.trace()
		},
	},
	{
		name: "legal: the paused holder crashed and never acted again",
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "10")
			b.add(1, trace.Pause("c1", trace.FaultGCPause, dur(20)))
			b.add(5, trace.Crash("c1")).expire(10.1, "redis", "k")
			b.op("c2/t1", acq, "k", ok, 10.2, 10.3).setnx(10.25, "redis", "c2/t1", "k", "10")
			b.op("c2/t1", rel, "k", ok, 15, 15.1).del(15.05, "redis", "c2/t1", "k", true)
			return b.trace()
		},
	},
	{
		name: "legal: the paused holder released before anyone else acquired",
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "10")
			b.pause(1, "c1", 11).expire(10.1, "redis", "k")
			b.op("c1/t1", rel, "k", model.ResNotOwner, 12, 12.1).del(12.05, "redis", "c1/t1", "k", false)
			b.op("c2/t1", acq, "k", ok, 12.2, 12.3).setnx(12.25, "redis", "c2/t1", "k", "10")
			return b.trace()
		},
	},
	{
		name: "premature expiry: work longer than the lease", want: CausePrematureExpiry, reason: ReasonSlowWork,
		clients: []string{"c1/t1", "c2/t1"}, cites: []string{trace.EvExpire},
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "10").expire(10.1, "redis", "k")
			b.op("c2/t1", acq, "k", ok, 10.2, 10.3).setnx(10.25, "redis", "c2/t1", "k", "10")
			b.op("c2/t1", rel, "k", ok, 12, 12.1).del(12.05, "redis", "c2/t1", "k", true)
			b.op("c1/t1", rel, "k", model.ResNotOwner, 15, 15.1).del(15.05, "redis", "c1/t1", "k", false)
			return b.trace()
		},
	},
	{
		name: "legal: work within the lease",
		trace: func() *trace.Trace {
			b := &tb{}
			b.section("c1/t1", "redis", "k", 0, 9.5).section("c2/t1", "redis", "k", 10.2, 12)
			return b.trace()
		},
	},
	{
		name: "premature expiry: renewal stalled by a partition", want: CausePrematureExpiry, reason: ReasonRenewalStalled,
		clients: []string{"c1/t1", "c2/t1"}, cites: []string{trace.EvPartition, trace.EvTimeout, trace.EvExpire},
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "10")
			b.cmd(3.3, "redis", "c1/watchdog", "(integer) 1", "", "PEXPIRE", "k", "10000")
			b.cmd(6.6, "redis", "c1/watchdog", "(integer) 1", "", "PEXPIRE", "k", "10000")
			b.add(7, trace.Partition("c1<->redis", trace.FaultPartition, dur(20)))
			b.add(12.9, trace.Timeout("c1", "c1/watchdog", "PEXPIRE to redis"))
			b.expire(16.6, "redis", "k")
			b.op("c2/t1", acq, "k", ok, 16.7, 16.8).setnx(16.75, "redis", "c2/t1", "k", "10")
			b.op("c2/t1", rel, "k", ok, 18, 18.1).del(18.05, "redis", "c2/t1", "k", true)
			b.op("c1/t1", rel, "k", model.ResNotOwner, 25, 27.2).del(27.1, "redis", "c1/t1", "k", false)
			return b.trace()
		},
	},
	{
		name: "premature expiry: the watchdog thread stalled", want: CausePrematureExpiry, reason: ReasonRenewalStalled,
		clients: []string{"c1/t1", "c2/t1"}, cites: []string{trace.EvFault, trace.EvExpire},
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "10")
			b.add(1, trace.FaultApplied("c1", trace.FaultWatchdogStall, "background threads stalled", dur(15)))
			b.expire(10.1, "redis", "k")
			b.op("c2/t1", acq, "k", ok, 10.2, 10.3).setnx(10.25, "redis", "c2/t1", "k", "10")
			b.op("c1/t1", rel, "k", model.ResNotOwner, 12, 12.1).del(12.05, "redis", "c1/t1", "k", true)
			return b.trace()
		},
	},
	{
		name: "legal: renewals kept the lease alive past the lease time",
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "10")
			for _, at := range []float64{3.3, 6.6, 9.9, 13.2, 16.5, 19.8} {
				b.cmd(at, "redis", "c1/watchdog", "(integer) 1", "", "PEXPIRE", "k", "10000")
			}
			b.op("c1/t1", rel, "k", ok, 20, 20.1).del(20.05, "redis", "c1/t1", "k", true)
			b.op("c2/t1", acq, "k", model.ResFail, 10, 10.1).setnxBusy(10.05, "redis", "c2/t1", "k", "10")
			b.op("c2/t1", acq, "k", ok, 20.2, 20.3).setnx(20.25, "redis", "c2/t1", "k", "10")
			return b.trace()
		},
	},
	{
		name: "lost after failover", want: CauseLostAfterFailover,
		clients: []string{"c1/t1", "c2/t1"}, nodes: []string{"redis-2"},
		cites: []string{trace.EvPromote, trace.EvNodeCrash, trace.EvMasterDown}, lease: true,
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis-1", "c1/t1", "k", "10")
			b.add(0.5, trace.NodeCrash("redis-1", -1))
			b.add(1.5, trace.MasterDown("sentinel", "redis-1"))
			b.add(2, trace.Promote("redis-2", "redis-1", "offset 1 of 2"))
			b.add(2, trace.Lost(trace.EvPromote, "redis-2", "k", ""))
			b.op("c2/t1", acq, "k", ok, 2.4, 2.6).setnx(2.5, "redis-2", "c2/t1", "k", "10")
			b.op("c2/t1", rel, "k", ok, 4, 4.1).del(4.05, "redis-2", "c2/t1", "k", true)
			b.op("c1/t1", rel, "k", model.ResNotOwner, 5, 5.1).del(5.05, "redis-2", "c1/t1", "k", false)
			return b.trace()
		},
	},
	{
		name: "legal: a failover that lost nothing",
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis-1", "c1/t1", "k", "10")
			b.add(0.15, trace.Replicated("redis-2", "k", trace.KeyCreated, ""))
			b.add(0.5, trace.NodeCrash("redis-1", -1))
			b.add(2, trace.Promote("redis-2", "redis-1", "offset 1 of 2"))
			b.op("c2/t1", acq, "k", model.ResFail, 2.4, 2.6).setnxBusy(2.5, "redis-2", "c2/t1", "k", "10")
			b.op("c1/t1", rel, "k", ok, 5, 5.1).del(5.05, "redis-2", "c1/t1", "k", true)
			b.op("c2/t1", acq, "k", ok, 5.2, 5.4).setnx(5.3, "redis-2", "c2/t1", "k", "10")
			return b.trace()
		},
	},
	{
		// The shape Redisson's hash lock leaves (redisson-latest, failover,
		// swarm seed 15): the revived hash is [field, count] and every
		// acquire's EVAL carries numkeys "1"; the count must not make the
		// last acquirer the revived key's owner.
		name: "legal: a promotion revives a released hash, and its owner's retried unlock deletes it",
		trace: func() *trace.Trace {
			b := &tb{}
			lock := func(at float64, client, tok string) {
				b.cmd(at, "redis-1", client, "(nil)", trace.KeyCreated, "EVAL", "sha1:lock", "1", "k", "30000", tok)
			}
			unlock := func(at float64, node, client, tok string) {
				b.cmd(at, node, client, "(integer) 1", trace.KeyDeleted, "EVAL", "sha1:unlock", "3", "k", "ch", "latch", "0", "30000", tok)
			}
			b.op("c2/t1", acq, "k", ok, 0, 0.2)
			lock(0.1, "c2/t1", "c2tok:t1")
			b.add(0.15, trace.Replicated("redis-2", "k", trace.KeyCreated, ""))
			b.op("c2/t1", rel, "k", ok, 5, 12)
			unlock(5.05, "redis-1", "c2/t1", "c2tok:t1")
			b.op("c1/t1", acq, "k", ok, 5.1, 5.2)
			lock(5.15, "c1/t1", "c1tok:t1")
			b.op("c1/t1", rel, "k", ok, 6, 6.1)
			unlock(6.05, "redis-1", "c1/t1", "c1tok:t1")
			b.add(10, trace.Promote("redis-2", "redis-1", "offset 1 of 3"))
			b.add(10, trace.Revived("redis-2", "k", []string{"c2tok:t1", "1"}, "deleted on redis-1, not replicated"))
			unlock(11, "redis-2", "c2/t1", "c2tok:t1")
			return b.trace()
		},
	},
	{
		name: "clock jump on one Redlock node", want: CauseClockJump,
		clients: []string{"c1/t1", "c2/t1"}, nodes: []string{"redis-c"}, cites: []string{trace.EvClockJump, trace.EvExpire}, lease: true,
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.3).redlock(0.1, "c1/t1", "k", "a", "b", "c")
			b.add(3, trace.ClockJump("redis-c", dur(8))).expire(3, "redis-c", "k")
			b.op("c2/t1", acq, "k", ok, 3.9, 4.2).redlock(4, "c2/t1", "k", "c", "d", "e")
			b.setnxBusy(4, "redis-a", "c2/t1", "k", "10").setnxBusy(4, "redis-b", "c2/t1", "k", "10")
			b.op("c2/t1", rel, "k", ok, 6, 6.1).unlockAll(6.05, "c2/t1", "k", all, "c", "d", "e")
			b.op("c1/t1", rel, "k", ok, 7, 7.1).unlockAll(7.05, "c1/t1", "k", map[string]bool{"a": true, "b": true}, "a", "b", "c")
			return b.trace()
		},
	},
	{
		// A 10 s key made at t=2.1 on a clock 10 % fast lives 9.09 s: it
		// expires at t=11.19, while its holder, whose work fits the lease,
		// works on until t=11.5.
		name: "clock drift on the node", want: CauseClockDrift,
		clients: []string{"c1/t1", "c2/t1"}, nodes: []string{"redis"}, cites: []string{trace.EvFault, trace.EvExpire}, lease: true,
		trace: func() *trace.Trace {
			b := &tb{}
			b.add(1, trace.ClockDrift("redis", 100000).WithFault(1))
			b.op("c1/t1", acq, "k", ok, 2, 2.2).setnx(2.1, "redis", "c1/t1", "k", "10").expire(11.19, "redis", "k")
			b.op("c2/t1", acq, "k", ok, 11.3, 11.4).setnx(11.35, "redis", "c2/t1", "k", "10")
			b.op("c1/t1", rel, "k", model.ResNotOwner, 11.5, 11.6).del(11.55, "redis", "c1/t1", "k", false)
			b.op("c2/t1", rel, "k", ok, 13, 13.1).del(13.05, "redis", "c2/t1", "k", true)
			return b.trace()
		},
	},
	{
		// The same fast clock, but the holder worked past the lease: the
		// key would have run out under it on time too.
		name: "premature expiry: work longer than the lease on a fast clock", want: CausePrematureExpiry, reason: ReasonSlowWork,
		clients: []string{"c1/t1", "c2/t1"}, nodes: []string{"redis"}, cites: []string{trace.EvExpire}, lease: true,
		trace: func() *trace.Trace {
			b := &tb{}
			b.add(1, trace.ClockDrift("redis", 100000).WithFault(1))
			b.op("c1/t1", acq, "k", ok, 2, 2.2).setnx(2.1, "redis", "c1/t1", "k", "10").expire(11.19, "redis", "k")
			b.op("c2/t1", acq, "k", ok, 11.3, 11.4).setnx(11.35, "redis", "c2/t1", "k", "10")
			b.op("c2/t1", rel, "k", ok, 12, 12.1).del(12.05, "redis", "c2/t1", "k", true)
			b.op("c1/t1", rel, "k", model.ResNotOwner, 12.5, 12.6).del(12.55, "redis", "c1/t1", "k", false)
			return b.trace()
		},
	},
	{
		// A slow clock keeps the key past its lease (to t=13.2): the
		// holder working past the lease still releases its own key.
		name: "legal: work past the lease on a slow clock",
		trace: func() *trace.Trace {
			b := &tb{}
			b.add(1, trace.ClockDrift("redis", -100000).WithFault(1))
			b.op("c1/t1", acq, "k", ok, 2, 2.2).setnx(2.1, "redis", "c1/t1", "k", "10")
			b.op("c2/t1", acq, "k", model.ResFail, 11.3, 11.4).setnxBusy(11.35, "redis", "c2/t1", "k", "10")
			b.op("c1/t1", rel, "k", ok, 12.5, 12.6).del(12.55, "redis", "c1/t1", "k", true)
			return b.trace()
		},
	},
	{
		// A slow clock does not shorten a key: an early expiry on it is
		// not the clock's doing.
		name: "premature expiry: an early expiry on a slow clock", want: CausePrematureExpiry, reason: ReasonNoProgress,
		clients: []string{"c1/t1", "c2/t1"}, nodes: []string{"redis"}, cites: []string{trace.EvExpire}, lease: false,
		trace: func() *trace.Trace {
			b := &tb{}
			b.add(1, trace.ClockDrift("redis", -100000).WithFault(1))
			b.op("c1/t1", acq, "k", ok, 2, 2.2).setnx(2.1, "redis", "c1/t1", "k", "10").expire(11.19, "redis", "k")
			b.op("c2/t1", acq, "k", ok, 11.3, 11.4).setnx(11.35, "redis", "c2/t1", "k", "10")
			b.op("c1/t1", rel, "k", model.ResNotOwner, 11.5, 11.6).del(11.55, "redis", "c1/t1", "k", false)
			b.op("c2/t1", rel, "k", ok, 13, 13.1).del(13.05, "redis", "c2/t1", "k", true)
			return b.trace()
		},
	},
	{
		name: "legal: a clock jump after the holder released",
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.3).redlock(0.1, "c1/t1", "k", "a", "b", "c")
			b.op("c1/t1", rel, "k", ok, 2.5, 2.6).unlockAll(2.55, "c1/t1", "k", all, "a", "b", "c")
			b.add(3, trace.ClockJump("redis-c", dur(8)))
			b.op("c2/t1", acq, "k", ok, 3.9, 4.2).redlock(4, "c2/t1", "k", "c", "d", "e")
			return b.trace()
		},
	},
	{
		name: "restart without persistence", want: CauseRestart,
		clients: []string{"c1/t1", "c2/t1"}, nodes: []string{"redis-c"}, cites: []string{trace.EvNodeStart, trace.EvNodeCrash}, lease: true,
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.3).redlock(0.1, "c1/t1", "k", "a", "b", "c")
			b.add(2, trace.NodeCrash("redis-c", dur(1)))
			b.add(3, trace.NodeStart("redis-c", "persistence none"))
			b.add(3, trace.Lost(trace.EvNodeStart, "redis-c", "k", "not persisted (none)"))
			b.op("c2/t1", acq, "k", ok, 3.9, 4.2).redlock(4, "c2/t1", "k", "c", "d", "e")
			b.op("c2/t1", rel, "k", ok, 6, 6.1).unlockAll(6.05, "c2/t1", "k", all, "c", "d", "e")
			b.op("c1/t1", rel, "k", ok, 7, 7.1)
			return b.trace()
		},
	},
	{
		name: "legal: a restart with persistence",
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.3).redlock(0.1, "c1/t1", "k", "a", "b", "c")
			b.add(2, trace.NodeCrash("redis-c", dur(1)))
			b.add(3, trace.NodeStart("redis-c", "persistence always"))
			b.op("c2/t1", acq, "k", model.ResFail, 3.9, 4.2).redlock(4, "c2/t1", "k", "d", "e")
			b.setnxBusy(4, "redis-c", "c2/t1", "k", "10")
			b.unlockAll(4.1, "c2/t1", "k", all, "d", "e")
			b.op("c1/t1", rel, "k", ok, 7, 7.1).unlockAll(7.05, "c1/t1", "k", all, "a", "b", "c")
			return b.trace()
		},
	},
	{
		name: "foreign release: non-atomic GET then DEL", want: CauseForeignRelease,
		clients: []string{"c2/t1", "c3/t1"}, cites: []string{trace.EvCommand},
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "5")
			b.op("c1/t1", rel, "k", ok, 4, 7)
			b.cmd(4.0, "redis", "c1/t1", `"c1/t1"`, "", "GET", "k").expire(5.1, "redis", "k")
			b.op("c2/t1", acq, "k", ok, 5.2, 5.4).setnx(5.3, "redis", "c2/t1", "k", "10")
			b.del(6, "redis", "c1/t1", "k", true)
			b.op("c3/t1", acq, "k", ok, 6.4, 6.6).setnx(6.5, "redis", "c3/t1", "k", "10")
			b.op("c2/t1", rel, "k", ok, 10, 10.1).op("c3/t1", rel, "k", ok, 12, 12.1)
			return b.trace()
		},
	},
	{
		name: "legal: compare-and-delete found another owner",
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "5")
			b.op("c1/t1", rel, "k", model.ResNotOwner, 4, 7).expire(5.1, "redis", "k")
			b.op("c2/t1", acq, "k", ok, 5.2, 5.4).setnx(5.3, "redis", "c2/t1", "k", "10")
			b.cmd(6, "redis", "c1/t1", "(integer) 0", "", "EVAL", "sha1:cad", "1", "k", "c1/t1")
			b.op("c3/t1", acq, "k", model.ResFail, 6.4, 6.6).setnxBusy(6.5, "redis", "c3/t1", "k", "10")
			b.op("c2/t1", rel, "k", ok, 10, 10.1).del(10.05, "redis", "c2/t1", "k", true)
			return b.trace()
		},
	},
	{
		name: "foreign renewal: a daemon extends the next holder's lock", want: CauseForeignRenewal, prop: PropOwnership,
		clients: []string{"c2/t1", "c1/daemon"}, nodes: []string{"redis"}, cites: []string{trace.EvCommand}, lease: true,
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "30")
			b.cmd(0.5, "redis", "c1/daemon", "(integer) 1", "", "EXPIRE", "k", "30")
			b.op("c1/t1", rel, "k", ok, 2, 2.1).del(2.05, "redis", "c1/t1", "k", true)
			b.op("c2/t1", acq, "k", ok, 2.5, 2.7).setnx(2.6, "redis", "c2/t1", "k", "30")
			b.cmd(10.2, "redis", "c1/daemon", "(integer) 1", "", "EXPIRE", "k", "30")
			b.cmd(20.2, "redis", "c1/daemon", "(integer) 1", "", "EXPIRE", "k", "30")
			b.op("c2/t1", rel, "k", ok, 25, 25.1).del(25.05, "redis", "c2/t1", "k", true)
			return b.trace()
		},
	},
	{
		name: "foreign renewal: a shortened TTL is an ownership violation", want: CauseForeignRenewal, prop: PropOwnership,
		clients: []string{"c1/t1", "c2/daemon"}, cites: []string{trace.EvCommand}, lease: true,
		trace: shortenedTTL,
	},
	{
		name: "foreign renewal: the shortened TTL lets a third client in", want: CausePrematureExpiry, reason: ReasonForeignTTL,
		clients: []string{"c1/t1", "c3/t1"}, cites: []string{trace.EvCommand, trace.EvExpire}, lease: true,
		trace: shortenedTTL,
	},
	{
		name: "legal: the daemon renews only its own process's lock",
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "30")
			b.cmd(0.5, "redis", "c1/daemon", "(integer) 1", "", "EXPIRE", "k", "30")
			b.op("c1/t1", rel, "k", ok, 2, 2.1).del(2.05, "redis", "c1/t1", "k", true)
			b.cmd(2.2, "redis", "c1/daemon", "(integer) 0", "", "EXPIRE", "k", "30")
			b.op("c2/t1", acq, "k", ok, 2.5, 2.7).setnx(2.6, "redis", "c2/t1", "k", "30")
			b.op("c2/t1", rel, "k", ok, 25, 25.1).del(25.05, "redis", "c2/t1", "k", true)
			return b.trace()
		},
	},
	{
		name: "orphan acquire adopted by a retry", want: CauseOrphanAcquire,
		clients: []string{"c1/t1", "c2/t1"}, cites: []string{trace.EvCommand, trace.EvExpire},
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", "error: command timed out", 0, 3).setnx(0.1, "redis", "c1/t1", "k", "10")
			b.add(0.2, trace.Drop("redis", "to c1: reply to SET"))
			b.add(3, trace.Timeout("c1", "c1/t1", "SET to redis"))
			b.op("c1/t1", acq, "k", ok, 3.5, 3.7).setnxBusy(3.55, "redis", "c1/t1", "k", "10")
			b.cmd(3.6, "redis", "c1/t1", `"c1/t1"`, "", "GET", "k").expire(10.1, "redis", "k")
			b.op("c2/t1", acq, "k", ok, 10.2, 10.3).setnx(10.25, "redis", "c2/t1", "k", "10")
			b.op("c2/t1", rel, "k", ok, 12, 12.1).del(12.05, "redis", "c2/t1", "k", true)
			b.op("c1/t1", rel, "k", model.ResNotOwner, 13, 13.1).del(13.05, "redis", "c1/t1", "k", false)
			return b.trace()
		},
	},
	{
		name: "legal: an acquire whose command never arrived",
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", "error: command timed out", 0, 3)
			b.add(0.05, trace.Drop("c1", "to redis: SET"))
			b.op("c1/t1", acq, "k", ok, 3.5, 3.7).setnx(3.6, "redis", "c1/t1", "k", "10")
			b.op("c1/t1", rel, "k", ok, 12, 12.1).del(12.05, "redis", "c1/t1", "k", true)
			b.op("c2/t1", acq, "k", ok, 12.2, 12.3).setnx(12.25, "redis", "c2/t1", "k", "10")
			return b.trace()
		},
	},
	{
		name: "retried unlock deletes the next holder's key", want: CauseRetriedCommand,
		clients: []string{"c2/t1", "c3/t1"}, cites: []string{trace.EvRetry, trace.EvCommand},
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "30")
			b.op("c1/t1", rel, "k", ok, 5, 9.7).del(5.1, "redis", "c1/t1", "k", true)
			b.add(5.1, trace.Drop("redis", "to c1: reply to DEL"))
			b.op("c2/t1", acq, "k", ok, 5.5, 5.7).setnx(5.6, "redis", "c2/t1", "k", "30")
			b.add(8.1, trace.Retry("c1", "c1/t1", "DEL to redis, attempt 2"))
			b.del(9.6, "redis", "c1/t1", "k", true)
			b.op("c3/t1", acq, "k", ok, 9.8, 9.9).setnx(9.85, "redis", "c3/t1", "k", "30")
			b.op("c2/t1", rel, "k", ok, 12, 12.1).op("c3/t1", rel, "k", ok, 13, 13.1)
			return b.trace()
		},
	},
	{
		name: "legal: a retried unlock that found nothing to delete",
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "30")
			b.op("c1/t1", rel, "k", ok, 5, 9.7).del(5.1, "redis", "c1/t1", "k", true)
			b.add(8.1, trace.Retry("c1", "c1/t1", "DEL to redis, attempt 2"))
			b.del(9.6, "redis", "c1/t1", "k", false)
			b.section("c2/t1", "redis", "k", 10, 12)
			return b.trace()
		},
	},
	{
		name: "local lock only", want: CauseLocalLockOnly, clients: []string{"c1/t1", "c2/t1"},
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.1).op("c2/t1", acq, "k", ok, 0.5, 0.6)
			b.op("c1/t1", rel, "k", ok, 1, 1.1).op("c2/t1", rel, "k", ok, 2, 2.1)
			return b.trace()
		},
	},
	{
		name: "legal: local locks used one at a time",
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 0.1).op("c1/t1", rel, "k", ok, 1, 1.1)
			b.op("c2/t1", acq, "k", ok, 1.2, 1.3).op("c2/t1", rel, "k", ok, 2, 2.1)
			return b.trace()
		},
	},
	{
		name: "validity not checked: Redlock paused during acquisition", want: CauseValidityNotChecked,
		clients: []string{"c1/t1", "c2/t1"}, nodes: []string{"redis-a", "redis-b", "redis-c"}, cites: []string{trace.EvPause, trace.EvExpire},
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 15).redlock(0.1, "c1/t1", "k", "a", "b", "c").pause(0.2, "c1", 14.5)
			b.expire(10.1, "redis-a", "k").expire(10.1, "redis-b", "k").expire(10.1, "redis-c", "k")
			b.op("c2/t1", acq, "k", ok, 15.1, 15.3).redlock(15.2, "c2/t1", "k", "a", "b", "c")
			b.op("c2/t1", rel, "k", ok, 20, 20.1).unlockAll(20.05, "c2/t1", "k", all, "a", "b", "c")
			b.op("c1/t1", rel, "k", ok, 22, 22.1)
			return b.trace()
		},
	},
	{
		name: "legal: Redlock checked the validity and gave up",
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", model.ResFail, 0, 15).redlock(0.1, "c1/t1", "k", "a", "b", "c").pause(0.2, "c1", 14.5)
			b.expire(10.1, "redis-a", "k").expire(10.1, "redis-b", "k").expire(10.1, "redis-c", "k")
			b.unlockAll(15.01, "c1/t1", "k", nil, "a", "b", "c")
			b.op("c2/t1", acq, "k", ok, 15.1, 15.3).redlock(15.2, "c2/t1", "k", "a", "b", "c")
			b.op("c2/t1", rel, "k", ok, 20, 20.1).unlockAll(20.05, "c2/t1", "k", all, "a", "b", "c")
			return b.trace()
		},
	},
	{
		name: "validity not checked: the late acquirer is the second holder", want: CauseValidityNotChecked,
		clients: []string{"c2/t1", "c1/t1"}, nodes: []string{"redis"}, cites: []string{trace.EvPause, trace.EvExpire},
		trace: func() *trace.Trace {
			b := &tb{}
			b.op("c1/t1", acq, "k", ok, 0, 70).setnx(0.1, "redis", "c1/t1", "k", "60").pause(0.2, "c1", 69.7)
			b.expire(60.1, "redis", "k")
			b.op("c2/t1", acq, "k", ok, 60.2, 60.3).setnx(60.25, "redis", "c2/t1", "k", "60")
			b.op("c1/t1", rel, "k", ok, 75, 75.1).op("c2/t1", rel, "k", ok, 80, 80.1)
			return b.trace()
		},
	},
	{
		name: "lost after failover: two masters at once", want: CauseLostAfterFailover,
		clients: []string{"c2/t1", "c1/t1"}, nodes: []string{"redis-2", "redis-1"}, cites: []string{trace.EvPromote}, lease: true,
		trace: func() *trace.Trace {
			b := &tb{}
			b.add(1, trace.MasterDown("sentinel", "redis-1"))
			b.add(1, trace.Promote("redis-2", "redis-1", "offset 1 of 2"))
			b.op("c2/t1", acq, "k", ok, 1.9, 2.1).setnx(2, "redis-2", "c2/t1", "k", "10")
			b.op("c1/t1", acq, "k", ok, 2.9, 3.1).setnx(3, "redis-1", "c1/t1", "k", "10")
			b.add(5, trace.Demote("redis-1", "rejoined as replica of redis-2"))
			b.add(5, trace.Lost(trace.EvDemote, "redis-1", "k", ""))
			b.op("c2/t1", rel, "k", ok, 6, 6.1).del(6.05, "redis-2", "c2/t1", "k", true)
			b.op("c1/t1", rel, "k", ok, 7, 7.1).del(7.05, "redis-2", "c1/t1", "k", false)
			return b.trace()
		},
	},
	{
		name: "legal: the deposed master refused the write",
		trace: func() *trace.Trace {
			b := &tb{}
			b.add(1, trace.MasterDown("sentinel", "redis-1"))
			b.add(1, trace.Promote("redis-2", "redis-1", "offset 1 of 2"))
			b.op("c2/t1", acq, "k", ok, 1.9, 2.1).setnx(2, "redis-2", "c2/t1", "k", "10")
			b.add(2.5, trace.Demote("redis-1", "rejoined as replica of redis-2"))
			b.op("c1/t1", acq, "k", "error: READONLY", 2.9, 3.1).cmd(3, "redis-1", "c1/t1", "(error) READONLY", "", "SET", "k", "c1/t1", "EX", "10", "NX")
			b.op("c2/t1", rel, "k", ok, 6, 6.1).del(6.05, "redis-2", "c2/t1", "k", true)
			return b.trace()
		},
	},
}

// A critical section that outlasts the lease because its write sat in
// the network cites the delay fault.
func TestSlowWorkCitesADelayedWrite(t *testing.T) {
	b := &tb{}
	b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "10")
	b.add(4, trace.Partition("c1->db", trace.FaultDelay, dur(2)))
	b.expire(10.1, "redis", "k")
	b.op("c2/t1", acq, "k", ok, 10.2, 10.3).setnx(10.25, "redis", "c2/t1", "k", "10")
	b.op("c1/t1", rel, "k", ok, 25, 25.1)
	r := Check(b.trace(), Options{LeaseMs: 10000})
	if len(r.Violations) == 0 || r.Violations[0].Reason != ReasonSlowWork ||
		!strings.Contains(r.Violations[0].Explanation, "a delay fault on c1->db") {
		t.Fatalf("%+v", r.Violations)
	}
}

// shortenedTTL: another process's PEXPIRE cuts c1's lease short and c3
// acquires.
func shortenedTTL() *trace.Trace {
	b := &tb{}
	b.op("c1/t1", acq, "k", ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", "k", "10")
	b.cmd(1, "redis", "c2/daemon", "(integer) 1", "", "PEXPIRE", "k", "100").expire(1.1, "redis", "k")
	b.op("c3/t1", acq, "k", ok, 1.2, 1.3).setnx(1.25, "redis", "c3/t1", "k", "10")
	b.op("c3/t1", rel, "k", ok, 3, 3.1).del(3.05, "redis", "c3/t1", "k", true)
	b.op("c1/t1", rel, "k", model.ResNotOwner, 5, 5.1).del(5.05, "redis", "c1/t1", "k", false)
	return b.trace()
}
