package protocols

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/luafast"
)

// Protocol is the catalog entry a described lock stands for: it runs as
// any catalog protocol does, its commands sent through the same thread
// API. A script whose text is a catalog script's runs on that script's
// proven fast path; any other runs on the Lua VM, with the same replies.
func (f *ProtocolFile) Protocol() Protocol {
	d := &f.Description
	p := Protocol{
		Name:    d.Name,
		Source:  cmp.Or(d.Source, "protocol file "+f.Path),
		Summary: cmp.Or(d.Summary, d.summary()),
		Lease:   d.lease(),
		Renews:  d.Renew != nil,
		Steps:   d.steps(),
		Scripts: d.fastPaths(),
		New: func(env Env, key string) Lock {
			return &fileLock{d: d, env: env, key: key, probe: f.probe}
		},
	}
	return p
}

// summary is a line for a description that gives none.
func (d *ProtocolDescription) summary() string {
	s := "described lock: acquire by " + d.Acquire.what() + ", release by " + d.Release.what()
	if d.Release.OwnerChecked {
		s += " (owner-checked)"
	}
	if d.Renew != nil {
		s += fmt.Sprintf(", renew by %s every %d ms", d.Renew.what(), d.Renew.EveryMs)
	}
	return s
}

// what names a call for the summary: its command, or "a Lua script".
func (c Call) what() string {
	if len(c.Command) > 0 {
		return strings.ToUpper(c.Command[0])
	}
	return "a Lua script"
}

// steps is what one operation costs: a lock retried on a timer, by the
// application (spinSteps) or by its own retry policy, at its interval.
func (d *ProtocolDescription) steps() StepCost {
	s := spinSteps
	if p := d.Retry; p != nil && p.IntervalMs < 500 {
		s.PerContenderWorkSec = spinSteps.PerContenderWorkSec * 500 / max(p.IntervalMs, 1)
	}
	return s
}

// fastPaths are the catalog's fast paths of the description's scripts.
func (d *ProtocolDescription) fastPaths() []sim.Script {
	var out []sim.Script
	for _, c := range []*Call{&d.Acquire.Call, &d.Release.Call, d.renewCall()} {
		if c == nil || len(c.Script) == 0 {
			continue
		}
		body := c.Script.Body()
		for _, s := range CatalogScripts() {
			if s.Source == body {
				out = append(out, s)
			}
		}
	}
	return out
}

// unfinished names the step of f whose script did not finish, when err
// says one did (a script that loops forever, luafast/runaway.go).
func (f *ProtocolFile) unfinished(err error) error {
	if msg, ok := f.unfinishedStep(err); ok {
		return &namedError{fmt.Sprintf("--protocol-file %q: %s", f.Path, msg), err}
	}
	return err
}

// unfinishedStep says which step's script did not finish, in the file's
// words, when err says one did.
func (f *ProtocolFile) unfinishedStep(err error) (string, bool) {
	var ue *luafast.UnfinishedError
	if !errors.As(err, &ue) {
		return "", false
	}
	d := &f.Description
	for _, s := range []struct {
		name string
		c    *Call
	}{{"acquire", &d.Acquire.Call}, {"release", &d.Release.Call}, {"renew", d.renewCall()}} {
		if s.c != nil && len(s.c.Script) > 0 && s.c.Script.Body() == ue.Script {
			return fmt.Sprintf("%s.script did not finish: %s", s.name, ue.Reason()), true
		}
	}
	return "", false
}

// namedError is err told in the words of the file that caused it.
type namedError struct {
	msg string
	err error
}

func (e *namedError) Error() string { return e.msg }
func (e *namedError) Unwrap() error { return e.err }

func (d *ProtocolDescription) renewCall() *Call {
	if d.Renew == nil {
		return nil
	}
	return &d.Renew.Call
}

// fileLock is one client's lock on one key, as a description defines it.
type fileLock struct {
	d       *ProtocolDescription
	env     Env
	key     string
	token   string
	holding *bool      // the current hold's flag, which its renewal reads
	probe   *fileProbe // the load's fault-free run records each reply here (nil: not one)
}

// Reply readings.
const (
	readNo = iota
	readYes
	readError
)

// read is what reply r means to a step: one of its yes replies, one of
// its no replies, or what otherwise says (an error by default).
func read(r sim.Reply, yes, no []ReplyValue, yesName, noName, otherwise string) int {
	for _, v := range yes {
		if v.matches(r) {
			return readYes
		}
	}
	for _, v := range no {
		if v.matches(r) {
			return readNo
		}
	}
	switch otherwise {
	case yesName:
		return readYes
	case noName:
		return readNo
	}
	return readError
}

// matches reports whether r is the reply v names.
func (v ReplyValue) matches(r sim.Reply) bool {
	switch v.Kind {
	case 0:
		return r.IsNil()
	case ':':
		return r.Kind == ':' && r.Int == v.Int
	}
	return (r.Kind == '+' || r.Kind == '$') && r.Str == v.Text
}

func (l *fileLock) Acquire(t *sim.Thread) (bool, error) {
	l.token = l.newToken(t)
	a, p := &l.d.Acquire, l.d.Retry
	start := t.Monotonic()
	for try := 1; ; try++ {
		r, err := l.send(t, &a.Call)
		reading := readError
		if err == nil {
			reading = read(r, a.Acquired, a.Held, "acquired", "held", a.Otherwise)
		}
		l.probe.saw(probeAcquire, r, err, reading)
		if err != nil {
			return false, err
		}
		switch reading {
		case readYes:
			l.renew(t)
			return true, nil
		case readError:
			return false, fmt.Errorf("acquire: unexpected reply %s", r)
		}
		if p == nil || p.Attempts > 0 && try >= p.Attempts {
			return false, nil
		}
		wait := time.Duration(p.IntervalMs) * time.Millisecond
		if p.JitterMs > 0 {
			wait += time.Duration(t.Rand().Int64N(p.JitterMs+1)) * time.Millisecond
		}
		if p.GiveUpMs > 0 && t.Monotonic()+wait-start > time.Duration(p.GiveUpMs)*time.Millisecond {
			return false, nil
		}
		t.Sleep(wait)
	}
}

// renew starts the renewal of the hold just taken, if the lock renews.
func (l *fileLock) renew(t *sim.Thread) {
	n := l.d.Renew
	if n == nil {
		return
	}
	holding := true
	l.holding = &holding
	token, every := l.token, time.Duration(n.EveryMs)*time.Millisecond
	hold := *l // the hold's key, token and env, whatever the lock does next
	t.Go(t.Name+"-renew", func(d *sim.Thread) {
		for {
			d.Sleep(every)
			if !holding {
				return
			}
			op := d.Invoke(model.OpRenew, hold.key, token)
			r, err := hold.send(d, &n.Call)
			reading := readError
			if err == nil {
				reading = read(r, n.Renewed, n.NotHeld, "renewed", "not_held", n.Otherwise)
			}
			hold.probe.saw(probeRenew, r, err, reading)
			if err == nil && reading == readError {
				err = fmt.Errorf("renew: unexpected reply %s", r)
			}
			d.Return(op, result(reading == readYes, err, model.ResNotOwner))
			if reading != readYes {
				return
			}
		}
	})
}

func (l *fileLock) Release(t *sim.Thread) (bool, error) {
	if l.holding != nil {
		*l.holding = false
	}
	rel := &l.d.Release
	r, err := l.send(t, &rel.Call)
	reading := readError
	if err == nil {
		reading = read(r, rel.Released, rel.NotHeld, "released", "not_held", rel.Otherwise)
	}
	l.probe.saw(probeRelease, r, err, reading)
	if err != nil {
		return false, err
	}
	switch reading {
	case readYes:
		return true, nil
	case readError:
		return false, fmt.Errorf("release: unexpected reply %s", r)
	}
	return false, nil
}

// send sends one step's call with its templates filled in: the command,
// or the script by EVAL (by EVALSHA, then EVAL if the node answers
// NOSCRIPT, with evalsha).
func (l *fileLock) send(t *sim.Thread, c *Call) (sim.Reply, error) {
	if len(c.Command) > 0 {
		args := make([]string, len(c.Command))
		for i, w := range c.Command {
			args[i] = l.fill(w)
		}
		return t.Call(l.env.Master, args...)
	}
	body := c.Script.Body()
	args := make([]string, 0, 3+len(c.Keys)+len(c.Argv))
	args = append(args, "EVAL", body, fmt.Sprint(len(c.Keys)))
	for _, w := range c.Keys {
		args = append(args, l.fill(w))
	}
	for _, w := range c.Argv {
		args = append(args, l.fill(w))
	}
	if !c.EvalSHA {
		return t.Call(l.env.Master, args...)
	}
	sha := append([]string{"EVALSHA", luafast.SHA1(body)}, args[2:]...)
	r, err := t.Call(l.env.Master, sha...)
	if err != nil || !r.IsErr() || !strings.HasPrefix(r.Str, "NOSCRIPT") {
		return r, err
	}
	return t.Call(l.env.Master, args...)
}

// fill fills in a command's template.
func (l *fileLock) fill(w string) string {
	if !strings.Contains(w, "{") {
		return w
	}
	return placeholder.ReplaceAllStringFunc(w, func(ph string) string {
		switch ph {
		case "{key}":
			return l.key
		case "{token}":
			return l.token
		case "{lease_ms}":
			return ms(l.env.Lease)
		case "{lease_s}":
			return seconds(l.env.Lease)
		}
		return ph
	})
}

// newToken draws a token from the description's template, left to right
// from the thread's random stream.
func (l *fileLock) newToken(t *sim.Thread) string {
	w := l.d.Token
	if !strings.Contains(w, "{") {
		return w
	}
	return placeholder.ReplaceAllStringFunc(w, func(ph string) string {
		switch ph {
		case "{uuid}":
			return uuid(t)
		case "{hex}":
			var b [32]byte
			r := t.Rand()
			putHex(b[:16], r.Uint64())
			putHex(b[16:], r.Uint64())
			return string(b[:])
		case "{thread}":
			return t.Name
		case "{client}":
			return t.Client()
		}
		return ph
	})
}
