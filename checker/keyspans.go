package checker

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/locksim/locksim/sim/trace"
)

// KeySpan is one life of a lock key on one node: from the event that
// created it (a client's command, a replicated write, a restart that kept
// it) to the one that ended it.
type KeySpan struct {
	Node    string
	Key     string
	Owner   string // the client whose command created it; a copy's: the key's latest owner ("" unknown)
	Start   int64  // ns
	End     int64  // ns; Forever if it outlived the run
	StartEv int
	EndEv   int    // -1 if it outlived the run
	EndHow  string // expired, deleted, lost, overwritten, node down, end of run
	TTL     []TTLPoint
}

// TTLPoint says the key's remaining TTL was TTL ns at T (TTLNone: no
// TTL; TTLUnknown: not known) and falls by one ns per ns until the next
// point.
type TTLPoint struct {
	T   int64
	TTL int64
	Ev  int
}

// TTL values that are not durations.
const (
	TTLNone    = -1
	TTLUnknown = -2
)

// Node event kinds: the parties of these events are Redis nodes.
var nodeKinds = map[string]bool{
	trace.EvCommand: true, trace.EvExpire: true, trace.EvReplicate: true, trace.EvPromote: true,
	trace.EvDemote: true, trace.EvNodeCrash: true, trace.EvNodeStart: true, trace.EvPublish: true,
}

// IsNodeEvent reports an event kind whose party is a Redis node.
func IsNodeEvent(kind string) bool { return nodeKinds[kind] }

type nodeKey struct{ node, key string }

// spanner follows every lock key on every node through the events that
// carry a Change, and the nodes' crashes and restarts.
type spanner struct {
	tr        *trace.Trace
	lockKeys  map[string]bool
	nodes     map[string]bool
	spans     []KeySpan
	open      map[nodeKey]int   // -> index in spans
	suspended map[string][]int  // node -> spans cut by its crash
	lastOwner map[string]string // key -> owner of its latest span anywhere
}

// keySpans lists every life of a lock key on every node of tr.
func keySpans(tr *trace.Trace, lockKeys map[string]bool) []KeySpan {
	s := &spanner{tr: tr, lockKeys: lockKeys, nodes: map[string]bool{}, spans: []KeySpan{},
		open: map[nodeKey]int{}, suspended: map[string][]int{}, lastOwner: map[string]string{}}
	for _, e := range tr.Events {
		if nodeKinds[e.Kind] {
			s.nodes[e.Party] = true
		}
	}
	for i, e := range tr.Events {
		if !s.nodes[e.Party] {
			continue
		}
		switch e.Kind {
		case trace.EvNodeCrash:
			s.crash(i, e)
		case trace.EvNodeStart:
			s.restart(i, e)
			s.change(i, e)
		case trace.EvClockJump:
			s.jump(i, e)
		default:
			s.change(i, e)
		}
	}
	return s.spans
}

func (s *spanner) openSpan(node, key, owner string, t int64, ev int, ttl int64) {
	s.spans = append(s.spans, KeySpan{Node: node, Key: key, Owner: owner, Start: t, End: Forever, StartEv: ev, EndEv: -1,
		EndHow: "end of run", TTL: []TTLPoint{{T: t, TTL: ttl, Ev: ev}}})
	s.open[nodeKey{node, key}] = len(s.spans) - 1
	if owner != "" {
		s.lastOwner[key] = owner
	}
}

func (s *spanner) closeSpan(i int, t int64, ev int, how string) {
	sp := &s.spans[i]
	sp.End, sp.EndEv, sp.EndHow = t, ev, how
	if how == trace.KeyExpired && len(sp.TTL) > 0 {
		// The expiry is ground truth: the TTL after the last change ran
		// out exactly here.
		last := &sp.TTL[len(sp.TTL)-1]
		last.TTL = t - last.T
	}
	delete(s.open, nodeKey{sp.Node, sp.Key})
}

// crash ends the node's open spans; a restart may bring them back.
func (s *spanner) crash(i int, e trace.Event) {
	var cut []int
	for k, si := range s.open {
		if k.node == e.Party {
			cut = append(cut, si)
		}
	}
	sort.Ints(cut)
	for _, si := range cut {
		s.closeSpan(si, e.T, i, "node down")
	}
	s.suspended[e.Party] = append(s.suspended[e.Party], cut...)
}

// restart brings back the keys the node kept across its restart; the
// ones it lost carry Change=lost at the same instant.
func (s *spanner) restart(i int, e trace.Event) {
	lost := map[string]bool{}
	for j := i; j < len(s.tr.Events) && s.tr.Events[j].T == e.T; j++ {
		if o := s.tr.Events[j]; o.Party == e.Party && o.Kind == trace.EvNodeStart && o.Change == trace.KeyLost {
			lost[o.Key] = true
		}
	}
	for _, si := range s.suspended[e.Party] {
		sp := s.spans[si]
		if lost[sp.Key] {
			continue
		}
		if _, isOpen := s.open[nodeKey{sp.Node, sp.Key}]; isOpen {
			continue
		}
		s.openSpan(sp.Node, sp.Key, sp.Owner, e.T, i, TTLUnknown)
	}
	delete(s.suspended, e.Party)
}

// jump moves the remaining TTL of the node's open keys by its clock jump.
func (s *spanner) jump(i int, e trace.Event) {
	for k, si := range s.open {
		if k.node != e.Party {
			continue
		}
		sp := &s.spans[si]
		if last := sp.TTL[len(sp.TTL)-1]; last.TTL >= 0 {
			sp.TTL = append(sp.TTL, TTLPoint{T: e.T, TTL: max(last.TTL-(e.T-last.T)-e.DurNs, 0), Ev: i})
		}
	}
}

// change applies an event that may create, end or touch a lock key.
func (s *spanner) change(i int, e trace.Event) {
	if !s.lockKeys[e.Key] {
		return
	}
	k := nodeKey{e.Party, e.Key}
	si, isOpen := s.open[k]
	switch {
	case e.Change == trace.KeyCreated:
		if isOpen {
			s.closeSpan(si, e.T, i, "overwritten")
		}
		owner := e.Client
		if owner == "" {
			owner = s.lastOwner[e.Key]
		}
		ttl, known := ttlOf(e)
		if !known {
			ttl = TTLUnknown
		}
		s.openSpan(e.Party, e.Key, owner, e.T, i, ttl)
	case isEnd(e.Change):
		if isOpen {
			s.closeSpan(si, e.T, i, e.Change)
		}
	case isOpen && e.Kind != trace.EvExpire:
		sp := &s.spans[si]
		if ttl, known := ttlOf(e); known {
			sp.TTL = append(sp.TTL, TTLPoint{T: e.T, TTL: ttl, Ev: i})
		} else if mayTouchTTL(e, sp.Owner) {
			sp.TTL = append(sp.TTL, TTLPoint{T: e.T, TTL: TTLUnknown, Ev: i})
		}
	}
}

func isEnd(change string) bool {
	return change == trace.KeyExpired || change == trace.KeyDeleted || change == trace.KeyLost
}

// ttlOf reads the TTL a successful command set on its key.
func ttlOf(e trace.Event) (int64, bool) {
	if len(e.Args) < 2 || strings.HasPrefix(e.Reply, "(error)") || strings.HasPrefix(e.Reply, "ERR") {
		return 0, false
	}
	const sec, ms = int64(1e9), int64(1e6)
	args := e.Args
	switch strings.ToUpper(args[0]) {
	case "SET":
		if e.Reply == "(nil)" && e.Change != trace.KeyCreated {
			return 0, false // NX or XX refused
		}
		return setTTL(args)
	case "SETEX":
		if len(args) > 2 {
			return ttlNum(args[2], sec)
		}
	case "PSETEX":
		if len(args) > 2 {
			return ttlNum(args[2], ms)
		}
	case "EXPIRE", "PEXPIRE":
		if e.Reply != "(integer) 1" || len(args) < 3 {
			return 0, false
		}
		if strings.EqualFold(args[0], "EXPIRE") {
			return ttlNum(args[2], sec)
		}
		return ttlNum(args[2], ms)
	case "PERSIST":
		if e.Reply == "(integer) 1" {
			return TTLNone, true
		}
	}
	return 0, false
}

// setTTL reads the TTL of a SET's options.
func setTTL(args []string) (int64, bool) {
	for i := 3; i < len(args); i++ {
		switch strings.ToUpper(args[i]) {
		case "EX":
			if i+1 < len(args) {
				return ttlNum(args[i+1], int64(1e9))
			}
		case "PX":
			if i+1 < len(args) {
				return ttlNum(args[i+1], int64(1e6))
			}
		case "KEEPTTL", "EXAT", "PXAT":
			return 0, false
		}
	}
	return TTLNone, true
}

func ttlNum(s string, unit int64) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 || v > math.MaxInt64/unit {
		return 0, false
	}
	return v * unit, true
}

// mayTouchTTL reports whether a command could have changed its key's TTL
// in a way ttlOf cannot read: a replicated write, an absolute expiry, or
// a script the owner ran (a renewal) that did not answer nil or 0.
func mayTouchTTL(e trace.Event, owner string) bool {
	if e.Kind == trace.EvReplicate {
		return true
	}
	if len(e.Args) == 0 || e.Reply == "(nil)" || e.Reply == "(integer) 0" || strings.HasPrefix(e.Reply, "(error)") {
		return false
	}
	switch strings.ToUpper(e.Args[0]) {
	case "EXPIREAT", "PEXPIREAT", "GETEX", "RESTORE":
		return true
	case "SET":
		for _, a := range e.Args[min(3, len(e.Args)):] {
			if strings.EqualFold(a, "KEEPTTL") {
				return false
			}
		}
		return true
	case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL":
		return owner != "" && e.Client == owner
	}
	return false
}
