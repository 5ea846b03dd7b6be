package fidelity

import "regexp"

// wordings maps error texts real Redis gives to the texts the sim gives
// for the same error, by deviation id (DEVIATIONS.md). Nothing else about
// an error reply is normalised.
var wordings = []struct {
	id        string
	real, sim string
}{
	{"D8", "ERR invalid expire time in 'set' command", "ERR invalid expire time in set"},
	{"D8", "ERR WATCH inside MULTI is not allowed", "ERR WATCH in MULTI"},
	{"D8", "ERR hash value is not an integer", "ERR value is not an integer or out of range"},
	// SET k v PX (no value):
	{"D8", "ERR syntax error", "ERR value is not an integer or out of range"},
	// SET with PX and EX, one of them invalid: Redis reports the clash,
	// the sim the invalid value.
	{"D8", "ERR syntax error", "ERR invalid expire time in set"},
}

// Errors raised by redis.call inside a script. Real Redis 7 passes the
// command's own error on and appends where it happened; miniredis wraps it
// as a compile error with a Lua stack trace (deviation D4).
var (
	realScriptErr = regexp.MustCompile(`^(.*) script: [0-9a-f]{40}, on @user_script:\d+\.$`)
	simScriptErr  = regexp.MustCompile(`^ERR Error compiling script \(new function\): :\d+: (.*) stack traceback: .*$`)
)

// errorWording returns the id of the documented deviation that explains
// why the sim's error text sim differs from real Redis's text real, or ""
// when none does.
func errorWording(sim, real string) string {
	if id := plainWording(sim, real); id != "" {
		return id
	}
	r, s := realScriptErr.FindStringSubmatch(real), simScriptErr.FindStringSubmatch(sim)
	if r != nil && s != nil && (r[1] == s[1] || plainWording(s[1], r[1]) != "") {
		return "D4"
	}
	return ""
}

func plainWording(sim, real string) string {
	for _, w := range wordings {
		if w.real == real && w.sim == sim {
			return w.id
		}
	}
	return ""
}
