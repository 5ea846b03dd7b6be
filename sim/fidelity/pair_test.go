package fidelity

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// tb is what the comparison harness needs from *testing.T and *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
}

// inspect is the connection id both sides use to read key state; the
// commands under test use other ids.
const inspect = 0

// shape says how to compare one reply.
type shape int

const (
	exact  shape = iota // byte for byte (errors through the wording table)
	ttlMs               // a PTTL in ms (integers only; nil, -1, -2 exact)
	ttlSec              // a TTL in seconds
)

// pair is the sim's Redis node and the real redis-server, driven by the
// same commands. The sim's clock stands still unless a test moves it; the
// real server's clock runs, so a TTL read on the real side may be lower by
// the wall time since the expiry was set (tolerance, not a deviation).
type pair struct {
	t     tb
	srv   *redisServer
	seed  uint64
	sim   *sim.Standalone
	real  map[int]*client
	start time.Time // wall clock at reset: bounds how far real TTLs ran down
	// Per connection, the shapes of the commands queued inside MULTI
	// (nil: not in MULTI), to compare EXEC's array element by element.
	queued map[int][]shape
	// history of this pair since reset, for failure messages.
	history []string
	// normalised counts the error-wording normalisations applied, by
	// deviation id.
	normalised map[string]int
	commands   int // commands compared since the pair was made
}

func newPair(t tb, srv *redisServer, seed uint64) *pair {
	p := &pair{t: t, srv: srv, real: map[int]*client{}, normalised: map[string]int{}}
	p.reset(t, seed)
	return p
}

// reset empties both sides: a fresh sim node, FLUSHALL and SCRIPT FLUSH on
// the real server, and new connections (no WATCH or MULTI state).
func (p *pair) reset(t tb, seed uint64) {
	t.Helper()
	p.t = t
	p.close()
	p.seed = seed
	p.sim = sim.NewStandalone(seed)
	p.queued = map[int][]shape{}
	p.history = p.history[:0]
	admin := p.conn(inspect)
	for _, cmd := range [][]string{{"FLUSHALL"}, {"SCRIPT", "FLUSH"}} {
		r, err := admin.do(cmd...)
		if err != nil || r.Kind != '+' {
			t.Fatalf("%s on redis-server: %v %v", strings.Join(cmd, " "), r, err)
		}
	}
	p.start = time.Now()
}

// close drops the real connections.
func (p *pair) close() {
	for id, c := range p.real {
		c.close()
		delete(p.real, id)
	}
}

func (p *pair) conn(id int) *client {
	c := p.real[id]
	if c == nil {
		var err error
		if c, err = dial(p.srv.Addr); err != nil {
			p.t.Fatalf("connect to %s: %v", p.srv.describe(), err)
		}
		p.real[id] = c
	}
	return c
}

// raw runs args on both sides on connection conn and returns both replies
// without comparing them.
func (p *pair) raw(conn int, args ...string) (simR, realR sim.Reply) {
	p.t.Helper()
	simR = p.sim.Do(conn, args...)
	realR, err := p.conn(conn).do(args...)
	if err != nil {
		p.t.Fatalf("%s on redis-server: %v", show(args), err)
	}
	p.commands++
	p.history = append(p.history, fmt.Sprintf("c%d> %s\n      sim:  %s\n      real: %s",
		conn, show(args), simR, realR))
	return simR, realR
}

// do runs args on both sides and fails unless the replies match under
// shape s. Commands queued inside MULTI are compared when EXEC runs.
func (p *pair) do(conn int, s shape, args ...string) sim.Reply {
	p.t.Helper()
	simR, realR := p.raw(conn, args...)
	cmd := strings.ToUpper(args[0])
	q, inMulti := p.queued[conn]
	var why string
	switch {
	case cmd == "EXEC" && inMulti && simR.Kind == '*' && realR.Kind == '*':
		why = p.matchExec(q, simR, realR)
	default:
		if inMulti && simR.Kind == '+' && simR.Str == "QUEUED" {
			p.queued[conn] = append(q, s)
		}
		why = p.match(s, simR, realR)
	}
	if why != "" {
		p.t.Fatalf("reply mismatch (%s) on c%d> %s\n  sim:  %s\n  real: %s\nhistory (sim seed %d):\n  %s",
			why, conn, show(args), simR, realR, p.seed, strings.Join(p.history, "\n  "))
	}
	// Both sides agree: track MULTI state from the agreed reply.
	switch {
	case cmd == "MULTI" && simR.Kind == '+':
		p.queued[conn] = []shape{}
	case cmd == "EXEC" || cmd == "DISCARD":
		if !simR.IsErr() || strings.HasPrefix(simR.Str, "EXECABORT") {
			delete(p.queued, conn)
		}
	}
	return simR
}

// matchExec compares EXEC's arrays element by element, each with the
// shape of the command queued there.
func (p *pair) matchExec(shapes []shape, s, r sim.Reply) string {
	if len(s.Array) != len(r.Array) || len(s.Array) != len(shapes) {
		return fmt.Sprintf("EXEC arrays of %d and %d replies for %d queued", len(s.Array), len(r.Array), len(shapes))
	}
	for i, sh := range shapes {
		if why := p.match(sh, s.Array[i], r.Array[i]); why != "" {
			return fmt.Sprintf("EXEC element %d: %s", i, why)
		}
	}
	return ""
}

// match compares two replies under shape sh; it returns "" when they
// match, or why not.
func (p *pair) match(sh shape, s, r sim.Reply) string {
	if s.Kind != r.Kind {
		return "reply types differ"
	}
	switch s.Kind {
	case '-':
		if s.Str == r.Str {
			return ""
		}
		if id := errorWording(s.Str, r.Str); id != "" {
			p.normalised[id]++
			return ""
		}
		return "error texts differ and no documented deviation covers them"
	case ':':
		if s.Int == r.Int {
			return ""
		}
		if s.Int >= 0 && r.Int >= 0 {
			switch sh {
			case ttlMs:
				if ttlClose(s.Int, r.Int, p.ranMs(), 1) {
					return ""
				}
				return fmt.Sprintf("PTTL beyond tolerance (real clock ran %d ms)", p.ranMs())
			case ttlSec:
				// The sim's TTLs are whole seconds wherever TTL is compared
				// (see genMs, genSec): the real one rounds (ms+500)/1000
				// after running down.
				lo := (s.Int*1000 - p.ranMs() + 500) / 1000
				if r.Int <= s.Int && r.Int >= lo {
					return ""
				}
				return fmt.Sprintf("TTL beyond tolerance (real clock ran %d ms)", p.ranMs())
			}
		}
		return "integers differ"
	case '*':
		if len(s.Array) != len(r.Array) {
			return "array lengths differ"
		}
		for i := range s.Array {
			if why := p.match(exact, s.Array[i], r.Array[i]); why != "" {
				return fmt.Sprintf("element %d: %s", i, why)
			}
		}
		return ""
	}
	if s.Str != r.Str {
		return "texts differ"
	}
	return ""
}

// ranMs bounds how many ms the real clock ran since the pair was reset,
// rounded up.
func (p *pair) ranMs() int64 {
	return int64(time.Since(p.start)/time.Millisecond) + 1
}

// ttlClose reports whether the real PTTL r can be the sim's PTTL s after
// the real clock ran at most ran ms more than the sim's, give or take
// slack ms of clock granularity.
func ttlClose(s, r, ran, slack int64) bool {
	return r <= s+slack && r >= s-ran-slack
}

// state compares every key on both sides: the key set, each key's type,
// value and PTTL (with the tolerance of shape ttlMs).
func (p *pair) state() {
	p.t.Helper()
	// KEYS order is unspecified on both sides: compare sorted sets.
	simR, realR := p.raw(inspect, "KEYS", "*")
	simKeys, realKeys := sortedStrings(simR.Array), sortedStrings(realR.Array)
	if simR.Kind != '*' || realR.Kind != '*' || strings.Join(simKeys, " ") != strings.Join(realKeys, " ") {
		p.t.Fatalf("key sets differ\n  sim:  %q\n  real: %q\nhistory (sim seed %d):\n  %s",
			simKeys, realKeys, p.seed, strings.Join(p.history, "\n  "))
	}
	for _, k := range simKeys {
		typ := p.do(inspect, exact, "TYPE", k)
		switch typ.Str {
		case "string":
			p.do(inspect, exact, "GET", k)
		case "hash":
			p.sortedPairs(k)
		}
		p.do(inspect, ttlMs, "PTTL", k)
	}
}

// sortedPairs compares HGETALL of key k as a set of field/value pairs.
func (p *pair) sortedPairs(k string) {
	p.t.Helper()
	simR, realR := p.raw(inspect, "HGETALL", k)
	a, b := fieldPairs(simR), fieldPairs(realR)
	if a != b {
		p.t.Fatalf("HGETALL %s differs\n  sim:  %s\n  real: %s\nhistory (sim seed %d):\n  %s",
			k, a, b, p.seed, strings.Join(p.history, "\n  "))
	}
}

func fieldPairs(r sim.Reply) string {
	var out []string
	for i := 0; i+1 < len(r.Array); i += 2 {
		out = append(out, r.Array[i].Str+"="+r.Array[i+1].Str)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func sortedStrings(rs []sim.Reply) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Str
	}
	sort.Strings(out)
	return out
}

// show renders a command for messages, with script bodies shortened.
func show(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 48 {
			a = a[:45] + "..."
		}
		out[i] = fmt.Sprintf("%q", a)
	}
	return strings.Join(out, " ")
}

// scriptKnown reports whether each side has the script with this SHA1 in
// its cache (read on the inspection connection; not a compared command).
func (p *pair) scriptKnown(sha string) (simKnows, realKnows bool) {
	p.t.Helper()
	s := p.sim.Do(inspect, "SCRIPT", "EXISTS", sha)
	r, err := p.conn(inspect).do("SCRIPT", "EXISTS", sha)
	if err != nil || s.Kind != '*' || r.Kind != '*' {
		p.t.Fatalf("SCRIPT EXISTS: sim %s, real %s %v", s, r, err)
	}
	return s.Array[0].Int == 1, r.Array[0].Int == 1
}
