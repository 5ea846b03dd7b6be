package sim

import (
	"slices"
	"sort"
	"time"
)

// keyState is a key's value and absolute expiry on the node clock, the
// unit replication ships and persistence saves. Absolute expiry, not a
// TTL and not the command: a replica applying "PEXPIRE 30000" late would
// extend the lock; replaying a script would re-read replica state.
type keyState struct {
	Key    string
	Gone   bool // tombstone
	Type   string
	Str    string
	Fields []string // hash: field, value, field, value...; set and list: members
	// Expire is the absolute expiry when Expires; a node clock can read
	// zero or less after a backward jump, so no value of Expire means
	// "none".
	Expire  time.Duration
	Expires bool
}

// capture reads key's state on n.
// value is the key's content as a list: a string's value, or a hash's
// fields and values, or a set's or list's members.
func (st keyState) value() []string {
	if st.Type == "string" {
		return []string{st.Str}
	}
	return st.Fields
}

func (n *Node) capture(key string) keyState {
	n.advance()
	m := n.m
	if !m.Exists(key) {
		return keyState{Key: key, Gone: true}
	}
	st := keyState{Key: key, Type: m.Type(key)}
	switch st.Type {
	case "string":
		st.Str, _ = m.Get(key)
	case "hash":
		fs, _ := m.HKeys(key)
		sort.Strings(fs)
		for _, f := range fs {
			st.Fields = append(st.Fields, f, m.HGet(key, f))
		}
	case "set":
		st.Fields, _ = m.Members(key)
	case "list":
		st.Fields, _ = m.List(key)
	}
	if ttl := m.TTL(key); ttl > 0 {
		st.Expire, st.Expires = n.last+ttl, true
	}
	return st
}

// apply installs st on n, converting its absolute expiry to n's clock.
// It reports false when the key had already expired there.
func (n *Node) apply(st keyState) bool {
	n.advance()
	m := n.m
	m.Del(st.Key)
	if st.Gone {
		return true
	}
	var ttl time.Duration
	if st.Expires {
		ttl = st.Expire - n.last
		if ttl <= 0 {
			return false
		}
	}
	switch st.Type {
	case "string":
		m.Set(st.Key, st.Str)
	case "hash":
		m.HSet(st.Key, st.Fields...)
	case "set":
		m.SAdd(st.Key, st.Fields...)
	case "list":
		m.RPush(st.Key, st.Fields...)
	default:
		return false
	}
	if ttl > 0 {
		m.SetTTL(st.Key, ttl)
	}
	return true
}

// snapshot captures every key of n, in key order.
func (n *Node) snapshot() []keyState {
	keys := n.m.Keys()
	out := make([]keyState, 0, len(keys))
	for _, k := range keys {
		out = append(out, n.capture(k))
	}
	return out
}

// load replaces n's dataset with snap and returns the keys n had that snap
// lacks (lost) and the keys snap brought in.
func (n *Node) load(snap []keyState) (lost []string) {
	have := map[string]bool{}
	for _, st := range snap {
		if !st.Gone {
			have[st.Key] = true
		}
	}
	for _, k := range n.m.Keys() {
		if !have[k] {
			lost = append(lost, k)
		}
	}
	n.m.FlushAll()
	for _, st := range snap {
		n.apply(st)
	}
	return lost
}

// equal reports whether two states of a key are the same, expiry included.
func (st keyState) equal(o keyState) bool {
	return st.Key == o.Key && st.Gone == o.Gone && st.Type == o.Type && st.Str == o.Str &&
		st.Expires == o.Expires && st.Expire == o.Expire && slices.Equal(st.Fields, o.Fields)
}
