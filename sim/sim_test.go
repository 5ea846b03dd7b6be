package sim

import (
	"testing"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

func TestSleepCallAndExpiry(t *testing.T) {
	w := New(Config{Seed: 1, Network: DefaultNetwork()})
	w.AddNode("redis")
	p := w.AddProcess("c1")
	var got []string
	p.Go("main", func(th *Thread) {
		r, err := th.Call("redis", "SET", "k", "v", "PX", "1000", "NX")
		if err != nil {
			t.Error(err)
		}
		got = append(got, r.String())
		th.Sleep(500 * time.Millisecond)
		r, _ = th.Call("redis", "GET", "k")
		got = append(got, r.String())
		th.Sleep(600 * time.Millisecond)
		r, _ = th.Call("redis", "GET", "k")
		got = append(got, r.String())
	})
	tr, err := w.Run()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"OK", `"v"`, "(nil)"}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("got %v, want %v", got, want)
	}
	var exp *trace.Event
	for i := range tr.Events {
		if tr.Events[i].Kind == trace.EvExpire {
			exp = &tr.Events[i]
		}
	}
	if exp == nil || exp.Key != "k" {
		t.Fatalf("no expiry event: %+v", tr.Events)
	}
	// SET arrived after one network hop; the key lives exactly 1000 ms.
	set := tr.Events[1]
	if set.Kind != trace.EvCommand || time.Duration(exp.T-set.T) != time.Second {
		t.Fatalf("expiry at %d, set at %d", exp.T, set.T)
	}
}

func TestPauseHoldsTimersAndReplies(t *testing.T) {
	w := New(Config{Seed: 2, Network: DefaultNetwork()})
	w.AddNode("redis")
	p := w.AddProcess("c1")
	var wokeAt time.Duration
	p.Go("main", func(th *Thread) {
		th.Sleep(100 * time.Millisecond)
		wokeAt = th.World().Now()
	})
	if err := w.Inject(trace.Fault{Kind: trace.FaultGCPause, Target: "c1", AtMs: 50, DurMs: 1000}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if wokeAt != 1050*time.Millisecond {
		t.Fatalf("woke at %v, want 1.05s (held through the pause)", wokeAt)
	}
}

func TestPanicInThreadIsAnError(t *testing.T) {
	w := New(Config{Seed: 3})
	w.AddProcess("c1").Go("main", func(th *Thread) { panic("boom") })
	if _, err := w.Run(); err == nil {
		t.Fatal("want error")
	}
}
