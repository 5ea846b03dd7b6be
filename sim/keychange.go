package sim

import (
	"sort"
	"strings"

	"github.com/locksim/locksim/sim/trace"
)

// stored is what a node held under a key before a write: whether the key
// existed and its value, so that the write's effect can be recorded.
type stored struct {
	exists      bool
	kind, value string
}

// storedAt reads what n stores under each key.
func (n *Node) storedAt(keys []string) []stored {
	out := make([]stored, len(keys))
	for i, k := range keys {
		if n.m.Exists(k) {
			kind, value := n.valueOf(k)
			out[i] = stored{true, kind, value}
		}
	}
	return out
}

// keyChange names the first key a write created or deleted, else the
// first it overwrote (its value changed; a TTL alone is no overwrite),
// and how.
func (n *Node) keyChange(keys []string, before []stored) (string, string) {
	for i, k := range keys {
		switch exists := n.m.Exists(k); {
		case exists && !before[i].exists:
			return k, trace.KeyCreated
		case !exists && before[i].exists:
			return k, trace.KeyDeleted
		}
	}
	for i, k := range keys {
		if !before[i].exists || !n.m.Exists(k) {
			continue
		}
		if kind, value := n.valueOf(k); kind != before[i].kind || value != before[i].value {
			return k, trace.KeyOverwritten
		}
	}
	return "", ""
}

// valueOf renders a key's type and value as two comparable strings.
func (n *Node) valueOf(k string) (kind, value string) {
	m := n.m
	switch kind = m.Type(k); kind {
	case "string":
		v, _ := m.Get(k)
		return kind, v
	case "hash":
		fs, _ := m.HKeys(k)
		sort.Strings(fs)
		var b strings.Builder
		for _, f := range fs {
			b.WriteByte(':')
			b.WriteString(f)
			b.WriteByte('=')
			b.WriteString(m.HGet(k, f))
		}
		return kind, b.String()
	case "set":
		ms, _ := m.Members(k)
		return kind, strings.Join(ms, "\x00")
	case "list":
		l, _ := m.List(k)
		return kind, strings.Join(l, "\x00")
	default:
		return kind, ""
	}
}
