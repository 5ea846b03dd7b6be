// Lock keys on nodes: each key's life (created to expired, deleted or
// lost) with its owner and TTL, and the roles of the parties.

package view

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/locksim/locksim/sim/trace"
)

// The view model is what the HTML timeline draws: the raw events and
// operations (for tooltips) plus what is derived from them here, where it
// can be tested: lanes, holds and their lease windows, the lock key's life
// on every node with its owner and TTL, fault shading, and the items each
// violation points at. The page's script only lays it out.

// Lane kinds.

func isEnd(change string) bool {
	return change == trace.KeyExpired || change == trace.KeyDeleted || change == trace.KeyLost
}

// keySpans follows every lock key on every node through the events that
// carry a Change, and the node's crashes and restarts.
// It is one pass whose open spans, spans cut by a crash and last owners
// are local state shared by every case below; split, that state would
// have to become a type of its own, which the view's move to the
// checker's key lifetimes (issue 17) will remove instead.
func (b *viewBuilder) keySpans() {
	tr := b.tr
	type nk struct{ node, key string }
	open := map[nk]int{}            // -> index in Keys
	suspended := map[string][]int{} // node -> spans cut by its crash
	vm := b.vm
	lastOwner := map[string]string{} // key -> owner of its latest span anywhere
	closeSpan := func(i int, t int64, ev int, how string) {
		s := &vm.Keys[i]
		s.End, s.EndEv, s.EndHow = t, ev, how
		if how == trace.KeyExpired && len(s.TTL) > 0 {
			// The expiry is ground truth: the TTL after the last change
			// ran out exactly here.
			last := &s.TTL[len(s.TTL)-1]
			last.TTL = t - last.T
		}
		delete(open, nk{s.Node, s.Key})
	}
	openSpan := func(node, key, owner string, t int64, ev int, ttl int64) {
		vm.Keys = append(vm.Keys, viewKeySpan{Lane: b.laneOf(node), Node: node, Key: key, Owner: owner,
			Start: t, End: vm.EndNs, StartEv: ev, EndEv: -1, EndHow: "end of run",
			TTL: []ttlPoint{{T: t, TTL: ttl, Ev: ev}}})
		open[nk{node, key}] = len(vm.Keys) - 1
		if owner != "" {
			lastOwner[key] = owner
		}
	}
	for i, e := range tr.Events {
		if !b.nodes[e.Party] {
			continue
		}
		switch e.Kind {
		case trace.EvNodeCrash:
			var cut []int
			for k, si := range open {
				if k.node == e.Party {
					cut = append(cut, si)
				}
			}
			sort.Ints(cut)
			for _, si := range cut {
				closeSpan(si, e.T, i, "node down")
			}
			suspended[e.Party] = append(suspended[e.Party], cut...)
			continue
		case trace.EvNodeStart:
			// Keys the node kept across the restart come back; the ones
			// it lost carry Change=lost at the same instant.
			lost := map[string]bool{}
			for j := i; j < len(tr.Events) && tr.Events[j].T == e.T; j++ {
				if o := tr.Events[j]; o.Party == e.Party && o.Kind == trace.EvNodeStart && o.Change == trace.KeyLost {
					lost[o.Key] = true
				}
			}
			for _, si := range suspended[e.Party] {
				s := vm.Keys[si]
				if lost[s.Key] {
					continue
				}
				if _, isOpen := open[nk{s.Node, s.Key}]; isOpen {
					continue
				}
				openSpan(s.Node, s.Key, s.Owner, e.T, i, ttlUnknown)
			}
			delete(suspended, e.Party)
		case trace.EvClockJump:
			for k, si := range open {
				if k.node != e.Party {
					continue
				}
				s := &vm.Keys[si]
				if last := s.TTL[len(s.TTL)-1]; last.TTL >= 0 {
					s.TTL = append(s.TTL, ttlPoint{T: e.T, TTL: max(last.TTL-(e.T-last.T)-e.DurNs, 0), Ev: i})
				}
			}
			continue
		}
		if !b.lockKeys[e.Key] {
			continue
		}
		k := nk{e.Party, e.Key}
		si, isOpen := open[k]
		switch {
		case e.Change == trace.KeyCreated:
			if isOpen {
				closeSpan(si, e.T, i, "overwritten")
			}
			owner := e.Client
			if owner == "" {
				owner = lastOwner[e.Key]
			}
			ttl, known := ttlOf(e)
			if !known {
				ttl = ttlUnknown
			}
			openSpan(e.Party, e.Key, owner, e.T, i, ttl)
		case isEnd(e.Change):
			if isOpen {
				closeSpan(si, e.T, i, e.Change)
			}
		case isOpen && e.Kind != trace.EvExpire:
			if ttl, known := ttlOf(e); known {
				s := &vm.Keys[si]
				s.TTL = append(s.TTL, ttlPoint{T: e.T, TTL: ttl, Ev: i})
			} else if mayTouchTTL(e, vm.Keys[si].Owner) {
				s := &vm.Keys[si]
				s.TTL = append(s.TTL, ttlPoint{T: e.T, TTL: ttlUnknown, Ev: i})
			}
		}
	}
	b.keyRows()
}

// keyRows packs each node's key spans on rows so that overlapping ones do
// not collide, keeping a key on its row when the row is free.
func (b *viewBuilder) keyRows() {
	type nk struct{ node, key string }
	vm := b.vm
	rowEnd := map[string][]int64{}
	order := make([]int, len(vm.Keys))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, c int) bool { return vm.Keys[order[a]].Start < vm.Keys[order[c]].Start })
	byKeyRow := map[nk]int{}
	for _, i := range order {
		s := &vm.Keys[i]
		ends := rowEnd[s.Node]
		row := -1
		// Keep a key on the row it had before when that row is free.
		if r, ok := byKeyRow[nk{s.Node, s.Key}]; ok && ends[r] <= s.Start {
			row = r
		}
		for r := 0; row < 0 && r < len(ends); r++ {
			if ends[r] <= s.Start {
				row = r
			}
		}
		if row < 0 {
			row = len(ends)
			ends = append(ends, 0)
		}
		ends[row] = s.End
		rowEnd[s.Node] = ends
		byKeyRow[nk{s.Node, s.Key}] = row
		s.Row = row
		if l := s.Lane; l >= 0 && row+1 > vm.Lanes[l].Rows {
			vm.Lanes[l].Rows = row + 1
		}
	}
}

// ttlOf reads the TTL a successful command set on its key.
func ttlOf(e trace.Event) (int64, bool) {
	if len(e.Args) < 2 || strings.HasPrefix(e.Reply, "(error)") || strings.HasPrefix(e.Reply, "ERR") {
		return 0, false
	}
	num := func(s string, unit int64) (int64, bool) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 || v > math.MaxInt64/unit {
			return 0, false
		}
		return v * unit, true
	}
	const sec, ms = int64(1e9), int64(1e6)
	args := e.Args
	switch strings.ToUpper(args[0]) {
	case "SET":
		if e.Reply == "(nil)" && e.Change != trace.KeyCreated {
			return 0, false // NX or XX refused
		}
		for i := 3; i < len(args); i++ {
			switch strings.ToUpper(args[i]) {
			case "EX":
				if i+1 < len(args) {
					return num(args[i+1], sec)
				}
			case "PX":
				if i+1 < len(args) {
					return num(args[i+1], ms)
				}
			case "KEEPTTL", "EXAT", "PXAT":
				return 0, false
			}
		}
		return ttlNone, true
	case "SETEX":
		if len(args) > 2 {
			return num(args[2], sec)
		}
	case "PSETEX":
		if len(args) > 2 {
			return num(args[2], ms)
		}
	case "EXPIRE", "PEXPIRE":
		if e.Reply != "(integer) 1" || len(args) < 3 {
			return 0, false
		}
		if strings.EqualFold(args[0], "EXPIRE") {
			return num(args[2], sec)
		}
		return num(args[2], ms)
	case "PERSIST":
		if e.Reply == "(integer) 1" {
			return ttlNone, true
		}
	}
	return 0, false
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
		for _, a := range e.Args[3:] {
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

// roles finds when each node served as an up master: a node is a master
// from the start when its first role change is a demotion, or when it has
// none and clients sent it commands; a promotion makes it one, a demotion
// ends it; a crash takes it down until it starts again.
func (b *viewBuilder) roles() {
	tr := b.tr
	end := b.vm.EndNs
	b.serving = map[string][][2]int64{}
	b.masters = map[string][][2]int64{}
	for _, n := range sortedNames(b.nodes) {
		type change struct {
			t    int64
			kind string
		}
		var changes []change
		clientCmds := false
		for _, e := range tr.Events {
			if e.Party != n {
				continue
			}
			switch e.Kind {
			case trace.EvPromote, trace.EvDemote, trace.EvNodeCrash, trace.EvNodeStart:
				if e.Kind == trace.EvPromote {
					b.failover = true
				}
				if len(changes) == 0 || changes[len(changes)-1] != (change{e.T, e.Kind}) {
					changes = append(changes, change{e.T, e.Kind})
				}
			case trace.EvCommand:
				if e.Client != "" {
					clientCmds = true
				}
			}
		}
		master := clientCmds
		for _, c := range changes {
			if c.kind == trace.EvPromote {
				master = false
				break
			}
			if c.kind == trace.EvDemote {
				master = true
				break
			}
		}
		up := true
		var serveFrom, masterFrom int64 = 0, 0
		flush := func(t int64) {
			if master && up && t > serveFrom {
				b.serving[n] = append(b.serving[n], [2]int64{serveFrom, t})
			}
		}
		for _, c := range changes {
			flush(c.t)
			wasMaster := master
			switch c.kind {
			case trace.EvPromote:
				master = true
			case trace.EvDemote:
				master = false
			case trace.EvNodeCrash:
				up = false
			case trace.EvNodeStart:
				up = true
			}
			if wasMaster && !master {
				b.masters[n] = append(b.masters[n], [2]int64{masterFrom, c.t})
			}
			if !wasMaster && master {
				masterFrom = c.t
			}
			serveFrom = c.t
		}
		flush(end + 1)
		if master {
			b.masters[n] = append(b.masters[n], [2]int64{masterFrom, end + 1})
		}
	}
}
