package checker

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/anishathalye/porcupine"
)

// outcome of a deterministic linearizability search.
type searchResult int

const (
	searchOK       searchResult = iota // a linearization exists
	searchIllegal                      // none exists
	searchExceeded                     // the step budget ran out first
)

// linearizable decides whether ops (one partition) has a linearization
// under m, with the Wing-Gong-Lowe search porcupine also runs, but bounded
// by a budget of search steps instead of wall-clock time: the answer and
// the steps it took depend on the history alone. Each step decreases
// *left; at zero the search gives up.
func linearizable(m porcupine.Model, ops []porcupine.Operation, left *int) searchResult {
	s := newSearch(m, ops)
	for s.head.next != nil {
		if *left <= 0 {
			return searchExceeded
		}
		*left--
		if !s.step() {
			return searchIllegal
		}
	}
	return searchOK
}

// node is one call or return in the doubly linked list of a search.
type node struct {
	call       bool
	op         int
	value      any // input for a call, output for a return
	match      *node
	prev, next *node
}

type frame struct {
	n     *node
	state any
}

type cached struct {
	set   []uint64
	state any
}

type search struct {
	m     porcupine.Model
	head  *node
	cur   *node
	state any
	done  []uint64
	stack []frame
	cache map[uint64][]cached
}

func newSearch(m porcupine.Model, ops []porcupine.Operation) *search {
	type point struct {
		t    int64
		call bool
		op   int
	}
	pts := make([]point, 0, 2*len(ops))
	for i, op := range ops {
		pts = append(pts, point{op.Call, true, i}, point{op.Return, false, i})
	}
	// Calls before returns at one instant: intervals are closed.
	slices.SortStableFunc(pts, func(a, b point) int {
		return cmp.Or(cmp.Compare(a.t, b.t), callFirst(a.call, b.call))
	})
	nodes := make([]node, 1+len(pts))
	head := &nodes[0]
	prev, calls := head, make([]*node, len(ops))
	for i, p := range pts {
		n := &nodes[1+i]
		n.call, n.op, n.prev = p.call, p.op, prev
		if p.call {
			n.value, calls[p.op] = ops[p.op].Input, n
		} else {
			n.value, n.match = ops[p.op].Output, calls[p.op]
			calls[p.op].match = n
		}
		prev.next, prev = n, n
	}
	return &search{m: m, head: head, cur: head.next, state: m.Init(),
		done: make([]uint64, (len(ops)+63)/64), cache: map[uint64][]cached{}}
}

// step does one unit of search work; it returns false when the history
// has no linearization.
func (s *search) step() bool {
	n := s.cur
	if n.call {
		ok, next := s.m.Step(s.state, n.value, n.match.value)
		if ok && s.remember(n.op, next) {
			s.stack = append(s.stack, frame{n, s.state})
			s.state = next
			s.done[n.op/64] |= 1 << (n.op % 64)
			lift(n)
			s.cur = s.head.next
			return true
		}
		s.cur = n.next
		return true
	}
	if len(s.stack) == 0 {
		return false
	}
	top := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	s.state = top.state
	s.done[top.n.op/64] &^= 1 << (top.n.op % 64)
	unlift(top.n)
	s.cur = top.n.next
	return true
}

// remember records (linearized set + op, state); false if seen before.
func (s *search) remember(op int, state any) bool {
	set := append([]uint64(nil), s.done...)
	set[op/64] |= 1 << (op % 64)
	h := uint64(14695981039346656037)
	for _, w := range set {
		h = (h ^ w) * 1099511628211
		h = bits.RotateLeft64(h, 17)
	}
	for _, c := range s.cache[h] {
		if equalSets(c.set, set) && s.m.Equal(c.state, state) {
			return false
		}
	}
	s.cache[h] = append(s.cache[h], cached{set, state})
	return true
}

func equalSets(a, b []uint64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// lift takes a call and its return out of the list.
func lift(n *node) {
	n.prev.next = n.next
	if n.next != nil {
		n.next.prev = n.prev
	}
	r := n.match
	r.prev.next = r.next
	if r.next != nil {
		r.next.prev = r.prev
	}
}

// unlift puts them back, in reverse order.
func unlift(n *node) {
	r := n.match
	r.prev.next = r
	if r.next != nil {
		r.next.prev = r
	}
	n.prev.next = n
	if n.next != nil {
		n.next.prev = n
	}
}

// callFirst orders a call before a return at one instant.
func callFirst(a, b bool) int {
	switch {
	case a && !b:
		return -1
	case b && !a:
		return 1
	}
	return 0
}
