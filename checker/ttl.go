package checker

import (
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// commandTTL reads the TTL a command sets, as a duration, when it sets one
// and succeeded. Scripts are read from their text: a script that calls
// pexpire (or sets PX) takes its last numeric ARGV as milliseconds, one
// that calls expire (or sets EX) as seconds. A script's reply does not say
// whether it set the TTL: callers trust scripts of the key's owner only.
func commandTTL(e *trace.Event, scripts *scriptUnits) (time.Duration, bool) {
	a := e.Args
	if len(a) < 2 || strings.HasPrefix(e.Reply, "(error)") || e.Reply == "(nil)" || e.Reply == "(integer) 0" {
		return 0, false
	}
	switch strings.ToUpper(a[0]) {
	case "SET", "GETEX":
		for i := 2; i+1 < len(a); i++ {
			switch strings.ToUpper(a[i]) {
			case "EX":
				return num(a[i+1], time.Second)
			case "PX":
				return num(a[i+1], time.Millisecond)
			}
		}
	case "SETEX":
		return num(a[2], time.Second)
	case "PSETEX":
		return num(a[2], time.Millisecond)
	case "EXPIRE":
		return num(a[2], time.Second)
	case "PEXPIRE":
		return num(a[2], time.Millisecond)
	case "EVAL", "EVALSHA":
		return scriptTTL(a, scripts)
	}
	return 0, false
}

func scriptTTL(a []string, scripts *scriptUnits) (time.Duration, bool) {
	if len(a) < 3 {
		return 0, false
	}
	unit := scripts.unit(a[1])
	if unit == 0 {
		return 0, false
	}
	nk, err := strconv.Atoi(a[2])
	if err != nil || 3+nk > len(a) {
		return 0, false
	}
	argv := a[3+nk:]
	for i := len(argv) - 1; i >= 0; i-- {
		if d, ok := num(argv[i], unit); ok {
			return d, true
		}
	}
	return 0, false
}

func isScript(e *trace.Event) bool {
	if len(e.Args) == 0 {
		return false
	}
	switch strings.ToUpper(e.Args[0]) {
	case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL":
		return true
	}
	return false
}

func num(s string, unit time.Duration) (time.Duration, bool) {
	if !digits(s) {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 {
		return 0, false
	}
	return time.Duration(v) * unit, true
}

// digits reports whether s is a non-empty run of decimal digits, after
// an optional '+' (what ParseInt accepts as positive): most script
// arguments are not numbers, and a failed parse allocates.
func digits(s string) bool {
	s = strings.TrimPrefix(s, "+")
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// scriptUnits is the TTL unit of each script of a trace, read from its
// text on first use: time.Millisecond for a script that calls pexpire or
// sets PX, time.Second for expire or EX, 0 for none.
type scriptUnits struct {
	scripts map[string]string        // the trace's script table
	units   map[string]time.Duration // by script name, the scripts met so far
}

func newScriptUnits(scripts map[string]string) scriptUnits {
	return scriptUnits{scripts: scripts, units: map[string]time.Duration{}}
}

func (s *scriptUnits) unit(name string) time.Duration {
	u, ok := s.units[name]
	if !ok {
		u = bodyUnit(s.scripts[strings.TrimPrefix(name, "sha1:")])
		s.units[name] = u
	}
	return u
}

// bodyUnit is a script's TTL unit, read from its text.
func bodyUnit(body string) time.Duration {
	lower := strings.ToLower(body)
	switch {
	case strings.Contains(lower, "pexpire"), strings.Contains(lower, "'px'"), strings.Contains(lower, `"px"`):
		return time.Millisecond
	case strings.Contains(lower, "expire"), strings.Contains(lower, "'ex'"), strings.Contains(lower, `"ex"`):
		return time.Second
	}
	return 0
}

// isExpireCommand reports a plain TTL renewal that hit an existing key.
func isExpireCommand(e *trace.Event) bool {
	if len(e.Args) == 0 || e.Reply != "(integer) 1" {
		return false
	}
	switch strings.ToUpper(e.Args[0]) {
	case "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT":
		return true
	}
	return false
}
