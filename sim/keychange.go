package sim

import (
	"sort"
	"strings"

	"github.com/locksim/locksim/sim/trace"
)

// stored is what a node held under a key before a write: whether the key
// existed and its value, so that the write's effect can be recorded.
type stored struct {
	exists bool
	value  string
}

// storedAt reads what n stores under each key.
func (n *Node) storedAt(keys []string) []stored {
	out := make([]stored, len(keys))
	for i, k := range keys {
		if n.m.Exists(k) {
			out[i] = stored{true, n.valueOf(k)}
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
		if before[i].exists && n.m.Exists(k) && n.valueOf(k) != before[i].value {
			return k, trace.KeyOverwritten
		}
	}
	return "", ""
}

// valueOf renders a key's value and type as one comparable string.
func (n *Node) valueOf(k string) string {
	m := n.m
	switch t := m.Type(k); t {
	case "string":
		v, _ := m.Get(k)
		return "s:" + v
	case "hash":
		fs, _ := m.HKeys(k)
		sort.Strings(fs)
		var b strings.Builder
		b.WriteString("h")
		for _, f := range fs {
			b.WriteString(":" + f + "=" + m.HGet(k, f))
		}
		return b.String()
	case "set":
		ms, _ := m.Members(k)
		return "S:" + strings.Join(ms, "\x00")
	case "list":
		l, _ := m.List(k)
		return "l:" + strings.Join(l, "\x00")
	default:
		return t
	}
}
