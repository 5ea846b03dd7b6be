package locktest

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/traces/view"
)

// Expect is Check for a lock that must be found unsafe: a known-bad lock
// kept as a regression test, or a test that a fault does break a lock.
// It searches as Check does (saved traces first, then rapid's draws,
// shrinking, polishing) and returns the smallest failing case, whose
// trace it writes under cfg.TraceDir: its Property and Cause say how it
// failed, its Replay how to run it again. Expect fails t when no
// scenario within the budget (cfg.Checks) breaks cfg.Property (or
// cfg.FailOn), and when a scenario could not run or cfg is not valid; it
// then returns nil (after t.Fatal, which stops a *testing.T).
//
//	f := locktest.Expect(t, locktest.Config{GoRedis: naive, Faults: []string{"gc-pause"}})
//	if f.Property != checker.PropMutex { t.Fatalf("unexpected: %s", f.Message) }
//
// With -locktest.replay=FILE, Expect replays FILE and returns its
// failure; the replay must reproduce the trace byte for byte (see Check).
func Expect(t TB, cfg Config) *Failure {
	t.Helper()
	r := check(t, cfg)
	switch {
	case r.failure != nil:
		t.Logf("locktest: found, as expected:\n%s", r.msg)
		return r.failure
	case r.msg != "":
		t.Fatalf("%s", r.msg)
	default:
		t.Fatalf("locktest: expected a violation, but %s", r.held)
	}
	return nil
}

// WriteHTML writes the timeline of the failing run: a self-contained
// HTML page (the one `locksim view` draws for the trace file) with each
// client's holds, the keys on every node, the faults and the violations,
// and porcupine's linearization of the lock history in a second tab.
func (f *Failure) WriteHTML(w io.Writer) error {
	if f.Outcome == nil {
		return errors.New("locktest: this Failure has no run to draw (it comes from Evaluate's judge alone)")
	}
	return view.WriteOutcomeView(w, f.Outcome)
}

// PropertyT is Property for a test that checks a GoRedis lock: the
// lock's runs happen in synctest bubbles of t, so the rapid.Check that
// uses the property must run in t itself (not in a parallel test).
func PropertyT(t *testing.T, cfg Config) func(*rapid.T) {
	c, err := cfg.prepare()
	if err != nil {
		return func(rt *rapid.T) { rt.Fatalf("%v", err) }
	}
	if c.bridged {
		if err := c.bubbleT(t); err != nil {
			return func(rt *rapid.T) { rt.Fatalf("%v", err) }
		}
	}
	return (&search{c: c}).property
}

// errPropertyNeedsT is Property's message for a GoRedis lock.
var errPropertyNeedsT = fmt.Errorf("%w: for rapid.Check, use locktest.PropertyT(t, cfg)", errNeedsT)
