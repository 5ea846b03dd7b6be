package sim

import (
	"slices"
	"strings"

	"github.com/locksim/locksim/sim/trace"
)

// stored is what a node held under a key before a write: whether the key
// existed and its value, so that the write's effect can be recorded.
type stored struct {
	exists       bool
	kind, value  string
	fields, vals []string // a hash's fields, sorted, and their values
}

// snapshot defers storedAt for a script: most scripts (an acquire that
// finds the lock taken) only read, and nothing before a script's first
// write changes its keys. The pre-hook sees each nested command first.
type snapshot struct {
	keys    []string
	pending bool     // no write yet
	taken   []stored // storedAt(keys) just before the first write
}

// storedAt reads what n stores under each key, into buffers the next
// command reuses.
func (n *Node) storedAt(keys []string) []stored {
	out := n.before[:0]
	n.vals = n.vals[:0]
	for _, k := range keys {
		var st stored
		if n.db.Exists(k) {
			st = n.valueOf(k)
		}
		out = append(out, st)
	}
	n.before = out
	return out
}

// keyChange names the first key a write created or deleted, else the
// first it overwrote (its value changed; a TTL alone is no overwrite),
// and how.
func (n *Node) keyChange(keys []string, before []stored) (string, string) {
	for i, k := range keys {
		switch exists := n.db.Exists(k); {
		case exists && !before[i].exists:
			return k, trace.KeyCreated
		case !exists && before[i].exists:
			return k, trace.KeyDeleted
		}
	}
	for i, k := range keys {
		if !before[i].exists || !n.db.Exists(k) {
			continue
		}
		if !n.valueOf(k).same(before[i]) {
			return k, trace.KeyOverwritten
		}
	}
	return "", ""
}

// valueOf reads the type and value of key k, which exists; a hash's
// values go to n.vals.
func (n *Node) valueOf(k string) stored {
	m := n.db
	st := stored{exists: true, kind: m.Type(k)}
	switch st.kind {
	case "string":
		st.value, _ = m.Get(k)
	case "hash":
		st.fields, _ = m.HKeys(k)
		from := len(n.vals)
		for _, f := range st.fields {
			n.vals = append(n.vals, m.HGet(k, f))
		}
		st.vals = n.vals[from:len(n.vals):len(n.vals)]
	case "set":
		ms, _ := m.Members(k)
		st.value = strings.Join(ms, "\x00")
	case "list":
		l, _ := m.List(k)
		st.value = strings.Join(l, "\x00")
	}
	return st
}

// same reports whether a and b hold the same value; two hashes, whether
// they render the same (hashText).
func (a stored) same(b stored) bool {
	if a.kind != b.kind || a.value != b.value {
		return false
	}
	if slices.Equal(a.fields, b.fields) && slices.Equal(a.vals, b.vals) {
		return true
	}
	return a.hashText() == b.hashText()
}

// hashText renders a hash's fields and values, in field order, as
// ":f=v" for each.
func (a stored) hashText() string {
	var b strings.Builder
	for i, f := range a.fields {
		b.WriteByte(':')
		b.WriteString(f)
		b.WriteByte('=')
		b.WriteString(a.vals[i])
	}
	return b.String()
}
