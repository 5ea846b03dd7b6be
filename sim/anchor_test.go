package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// anchorWorld runs c1 invoking and returning two acquires, 1 s and 3 s
// in, each answered 100 ms later, with faults f.
func anchorWorld(t *testing.T, f ...trace.Fault) (*trace.Trace, error) {
	t.Helper()
	w := New(Config{Seed: 1})
	p := w.AddProcess("c1")
	p.Go("main", func(th *Thread) {
		for i, at := range []time.Duration{time.Second, 3 * time.Second} {
			th.Sleep(at - th.Monotonic())
			id := th.Invoke("acquire", "k", "")
			th.Sleep(100 * time.Millisecond)
			th.Return(id, []string{"fail", "ok"}[i])
		}
		th.Sleep(time.Second)
	})
	for _, x := range f {
		if err := w.Inject(x); err != nil {
			return nil, err
		}
	}
	return w.Run()
}

func TestAnchoredFaultFiresAtItsAnchor(t *testing.T) {
	pause := trace.Fault{Kind: trace.FaultGCPause, Target: "c1", AtMs: 999_999, DurMs: 500,
		Anchor: &trace.Anchor{Party: "c1", Op: "acquire", Phase: trace.PhaseReturn, Result: "ok", Nth: 1, AfterMs: 20}}
	tr, err := anchorWorld(t, pause)
	if err != nil {
		t.Fatal(err)
	}
	e := find(tr, trace.EvPause, "")
	if e == nil || e.T != int64(3120*time.Millisecond) {
		t.Fatalf("pause %+v, want at 3.12 s (the ok return at 3.1 s + 20 ms; the failed one does not count)", e)
	}
	a := find(tr, trace.EvFault, "")
	if a == nil || !strings.Contains(a.Detail, "anchor: gc-pause at c1's 1st acquire return ok +20 ms = 3120 ms") {
		t.Fatalf("anchor event %+v", a)
	}
}

func TestAnchoredFaultThatNeverFiresIsNotApplied(t *testing.T) {
	pause := trace.Fault{Kind: trace.FaultGCPause, Target: "c1", DurMs: 500,
		Anchor: &trace.Anchor{Party: "c1", Op: "acquire", Phase: trace.PhaseInvoke, Nth: 3}}
	tr, err := anchorWorld(t, pause)
	if err != nil {
		t.Fatal(err)
	}
	if e := find(tr, trace.EvPause, ""); e != nil {
		t.Fatalf("a pause anchored to a third acquire ran: %+v", e)
	}
}

func TestAnchorErrors(t *testing.T) {
	for _, a := range []trace.Anchor{
		{Party: "c9", Op: "acquire", Phase: trace.PhaseInvoke, Nth: 1},
		{Party: "c1", Op: "acquire", Phase: "later", Nth: 1},
		{Party: "c1", Op: "acquire", Phase: trace.PhaseInvoke, Nth: 0},
	} {
		if _, err := anchorWorld(t, trace.Fault{Kind: trace.FaultGCPause, Target: "c1", DurMs: 1, Anchor: &a}); err == nil {
			t.Fatalf("anchor %+v accepted", a)
		}
	}
}

func TestRestartingNodeRefusesAtOnceAndBlackholeHangs(t *testing.T) {
	for _, tc := range []struct {
		kind string
		want error
	}{{trace.FaultNodeRestart, ErrRefused}, {trace.FaultBlackhole, ErrTimeout}} {
		w := New(Config{Seed: 2, Network: DefaultNetwork(), CommandTimeout: 3 * time.Second})
		w.AddNode("redis")
		p := w.AddProcess("c1")
		var err error
		var took time.Duration
		p.Go("main", func(th *Thread) {
			th.Sleep(time.Second)
			start := th.Monotonic()
			_, err = th.Call("redis", "PING")
			took = th.Monotonic() - start
		})
		if ierr := w.Inject(trace.Fault{Kind: tc.kind, Target: "redis", AtMs: 500, DurMs: 10_000}); ierr != nil {
			t.Fatal(ierr)
		}
		if _, rerr := w.Run(); rerr != nil {
			t.Fatal(rerr)
		}
		if err != tc.want || (tc.want == ErrRefused) != (took < 10*time.Millisecond) {
			t.Fatalf("%s: %v after %v, want %v", tc.kind, err, took, tc.want)
		}
	}
}
