package locktest_test

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces/locktest"
)

// getsetLock is the old "SETNX with an expiry timestamp, GETSET when it
// has passed" lock a user might still run: the key holds the holder's
// expiry on its own clock and has no TTL.
type getsetLock struct {
	env     protocols.Env
	key     string
	expires int64
}

func (l *getsetLock) Acquire(t *sim.Thread) (bool, error) {
	now := t.Now().Milliseconds()
	exp := strconv.FormatInt(now+l.env.Lease.Milliseconds()+1, 10)
	r, err := t.Call(l.env.Master, "SETNX", l.key, exp)
	if err != nil || r.Int == 1 {
		l.expires, _ = strconv.ParseInt(exp, 10, 64)
		return err == nil, err
	}
	if r, err = t.Call(l.env.Master, "GET", l.key); err != nil || r.IsNil() {
		return false, err
	}
	if cur, _ := strconv.ParseInt(r.Str, 10, 64); cur > now {
		return false, nil
	}
	if r, err = t.Call(l.env.Master, "GETSET", l.key, exp); err != nil {
		return false, err
	}
	if old, _ := strconv.ParseInt(r.Str, 10, 64); r.IsNil() || old < now {
		l.expires, _ = strconv.ParseInt(exp, 10, 64)
		return true, nil
	}
	return false, nil
}

func (l *getsetLock) Release(t *sim.Thread) (bool, error) {
	if t.Now().Milliseconds() >= l.expires {
		return false, nil
	}
	r, err := t.Call(l.env.Master, "DEL", l.key)
	return err == nil && r.Int == 1, err
}

var getsetProtocol = protocols.Protocol{
	Name: "test-getset-timestamp", Source: "test: SETNX expiry timestamp, GETSET takeover",
	Summary: "SETNX key <expiry>; GETSET when the stored expiry passed on the client's clock",
	Lease:   10 * time.Second,
	New:     func(env protocols.Env, key string) protocols.Lock { return &getsetLock{env: env, key: key} },
}

// TestGetsetTakeoverUnderClientClockJump checks that a takeover by a
// client whose clock jumped forward is reported as a clock-jump takeover
// citing the GETSET that took the key and the jump, not as a lock that
// lives only in each process.
func TestGetsetTakeoverUnderClientClockJump(t *testing.T) {
	cfg := locktest.Config{Lock: &getsetProtocol}
	sc := protocols.Scenario{Protocol: getsetProtocol.Name, Workload: "unique-name", Clients: 2, Threads: 1, Ops: 1,
		Faults: []trace.Fault{{Kind: trace.FaultClockJump, Target: "c1", AtMs: 100, Value: 60_000}}}
	res, err := locktest.Evaluate(cfg, sc)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil {
		t.Fatalf("no failure: %+v", res.Outcome.File.Report)
	}
	v := res.Failure.Violations[0]
	if v.Cause != checker.CauseClockJump || v.Reason != checker.ReasonClientClock {
		t.Fatalf("cause %s (%s), want %s (%s): %s", v.Cause, v.Reason, checker.CauseClockJump, checker.ReasonClientClock, v.Explanation)
	}
	t.Log(v.Explanation)
	tr := res.Outcome.File.Trace
	cited := func(kind, first string) bool {
		return slices.ContainsFunc(v.Events, func(i int) bool {
			e := tr.Events[i]
			return e.Kind == kind && (first == "" || len(e.Args) > 0 && e.Args[0] == first)
		})
	}
	if !cited(trace.EvCommand, "GETSET") || !cited(trace.EvClockJump, "") {
		t.Fatalf("the GETSET and the clock jump are not both cited: %v\n%s", v.Events, v.Explanation)
	}
}
