package protocols

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// A step that fails at run time (a misspelt command, a reading of the
// wrong type, a script that raises an error) makes every acquire fail,
// and a lock nobody ever holds is never unsafe: run would print OK,
// explore "not found", verify "verified", about a lock that never ran.
// So a protocol file is run once when it is loaded, fault-free, and
// refused when a step answered a reply the file does not declare, when
// no acquire took the lock or when no release freed it.

// The steps a probe records.
const (
	probeAcquire = iota
	probeRelease
	probeRenew
)

// fileProbe records what the steps of one fault-free run answered.
type fileProbe struct {
	d       *ProtocolDescription
	bad     string        // the first reply the file does not declare (or no reply), in the file's words
	yes     [3]int        // per step, the replies that meant success
	firstNo [3]*sim.Reply // per step, the first reply that meant no
}

// saw records step's reply r (err: none came) and what the step read
// in it. A nil probe records nothing.
func (p *fileProbe) saw(step int, r sim.Reply, err error, reading int) {
	switch {
	case p == nil:
	case p.bad == "" && err == nil && reading != readError && raisedByRedis(r):
		p.bad = fmt.Sprintf("%s answered %s in a fault-free run: Redis raised it, so the step is broken, although the file's \"otherwise\" reads it as %s",
			p.field(step), tellReply(r), p.readingName(step, reading))
	case err == nil && reading == readYes:
		p.yes[step]++
	case err == nil && reading == readNo:
		if p.firstNo[step] == nil {
			p.firstNo[step] = &r
		}
	case p.bad != "":
	case err != nil:
		p.bad = fmt.Sprintf("%s got no reply in a fault-free run: %v", p.field(step), err)
	default:
		yes, no := p.readings(step)
		p.bad = fmt.Sprintf("%s answered %s in a fault-free run, a reply the file does not declare (its %s/%s readings)%s",
			p.field(step), tellReply(r), yes, no, p.typeHint(step, r))
	}
}

// call is step's call in the description.
func (p *fileProbe) call(step int) *Call {
	switch step {
	case probeAcquire:
		return &p.d.Acquire.Call
	case probeRelease:
		return &p.d.Release.Call
	}
	return p.d.renewCall()
}

// field names step's call as the file does: acquire.command, release.script.
func (p *fileProbe) field(step int) string {
	name := [...]string{"acquire", "release", "renew"}[step]
	if len(p.call(step).Command) > 0 {
		return name + ".command"
	}
	return name + ".script"
}

// readings names step's two readings.
func (p *fileProbe) readings(step int) (yes, no string) {
	return [...]string{"acquired", "released", "renewed"}[step],
		[...]string{"held", "not_held", "not_held"}[step]
}

// readingName names what step read in a reply.
func (p *fileProbe) readingName(step, reading int) string {
	yes, no := p.readings(step)
	if reading == readYes {
		return yes
	}
	return no
}

// raisedByRedis reports whether r is an error Redis raises on a call it
// cannot run (an unknown command, wrong arguments, a script that fails),
// rather than one a script returns on purpose (redis.error_reply).
func raisedByRedis(r sim.Reply) bool {
	return r.IsErr() && (strings.HasPrefix(r.Str, "ERR ") || strings.HasPrefix(r.Str, "WRONGTYPE "))
}

// declared is every reply step's readings name.
func (p *fileProbe) declared(step int) []ReplyValue {
	switch step {
	case probeAcquire:
		return slices.Concat(p.d.Acquire.Acquired, p.d.Acquire.Held)
	case probeRelease:
		return slices.Concat(p.d.Release.Released, p.d.Release.NotHeld)
	}
	return slices.Concat(p.d.Renew.Renewed, p.d.Renew.NotHeld)
}

// typeHint points at a reading that names r's value as the other type:
// "1" for the integer 1, or 1 for the string "1".
func (p *fileProbe) typeHint(step int, r sim.Reply) string {
	for _, v := range p.declared(step) {
		switch {
		case v.Kind == '$' && r.Kind == ':' && v.Text == strconv.FormatInt(r.Int, 10):
			return fmt.Sprintf(`; the file's %s is a string: an integer reply is written without quotes, %d`, v, r.Int)
		case v.Kind == ':' && (r.Kind == '$' || r.Kind == '+') && r.Str == strconv.FormatInt(v.Int, 10):
			return fmt.Sprintf(`; the file's %s is an integer: a string reply is written in quotes, %q`, v, r.Str)
		}
	}
	return ""
}

// tellReply words a reply as a protocol file names one.
func tellReply(r sim.Reply) string {
	switch r.Kind {
	case '-':
		msg, _, _ := strings.Cut(r.Str, " stack traceback:")
		return fmt.Sprintf("the error %q", msg)
	case ':':
		return fmt.Sprintf("the integer %d", r.Int)
	case '+', '$':
		return fmt.Sprintf("the string %q", r.Str)
	case '*':
		return fmt.Sprintf("an array of %d replies", len(r.Array))
	}
	return "null (a nil reply)"
}

// tellNo words step's first no reply.
func (p *fileProbe) tellNo(step int) string {
	_, no := p.readings(step)
	if r := p.firstNo[step]; r != nil {
		return fmt.Sprintf("answered %s, a %s reading", tellReply(*r), no)
	}
	return "got no reply"
}

// verdict is the probe's refusal, or "" for a lock that ran.
func (p *fileProbe) verdict() string {
	switch {
	case p.bad != "":
		return p.bad
	case p.yes[probeAcquire] == 0:
		return fmt.Sprintf("%s answered no acquired reading in a fault-free run, so no client ever held the lock (the first acquire %s)",
			p.field(probeAcquire), p.tellNo(probeAcquire))
	case p.yes[probeRelease] == 0:
		return fmt.Sprintf("%s answered no released reading in a fault-free run (the first release, of a lock just taken, %s)",
			p.field(probeRelease), p.tellNo(probeRelease))
	}
	return ""
}

// probeRun runs the described lock once, fault-free: seed 1, two
// clients, one operation each, the default workload, a critical section
// half the lease (past the first renewal, when the lock renews before
// the lease ends) on a network of a microsecond. It returns the reason
// to refuse the file, in its words, or "".
func (f *ProtocolFile) probeRun() string {
	_, msg := f.runProbe()
	return msg
}

// runProbe is probeRun's run, and what it recorded.
func (f *ProtocolFile) runProbe() (*fileProbe, string) {
	d := &f.Description
	p := &fileProbe{d: d}
	g := *f
	g.probe = p
	work := max(d.LeaseMs/2, 1)
	if n := d.Renew; n != nil && n.EveryMs < d.LeaseMs {
		work = n.EveryMs + (d.LeaseMs-n.EveryMs)/2
	}
	sc := Scenario{
		Seed: 1, ProtocolFile: &g, Clients: 2, Ops: 1, Attempts: 3, WorkMs: work,
		Network: sim.NetworkConfig{LatencyMin: time.Microsecond, LatencyMax: time.Microsecond},
	}
	msg := ""
	if _, _, err := Run(sc); err != nil {
		var ok bool
		if msg, ok = g.unfinishedStep(err); !ok {
			msg = "a fault-free run of the lock failed: " + strings.TrimPrefix(err.Error(), f.Path+": ")
		}
	} else {
		msg = p.verdict()
	}
	return p, msg
}
