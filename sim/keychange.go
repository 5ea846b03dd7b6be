package sim

import (
	"sort"
	"strings"

	"github.com/alicebob/miniredis/v2"

	"github.com/locksim/locksim/sim/trace"
)

// stored is what a node held under a key before a write: whether the key
// existed and its value, so that the write's effect can be recorded.
type stored struct {
	exists      bool
	kind, value string
}

// snapshot defers storedAt for a script: most scripts (an acquire that
// finds the lock taken) only read, and nothing before a script's first
// write changes its keys. The pre-hook sees each nested command first.
type snapshot struct {
	keys    []string
	pending bool     // no write yet
	taken   []stored // storedAt(keys) just before the first write
}

// isScript reports whether cmd (upper case) runs a script.
func isScript(cmd string) bool {
	switch cmd {
	case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO":
		return true
	}
	return false
}

// beforeWrite takes the pending snapshot when cmd, a nested command of the
// running script, is its first write.
func (n *Node) beforeWrite(cmd string) {
	if n.snap.pending && !isScript(cmd) && writes(n, cmd) {
		n.snap.taken, n.snap.pending = n.storedAt(n.snap.keys), false
	}
}

// storedAt reads what n stores under each key, into a buffer the next
// command reuses.
func (n *Node) storedAt(keys []string) []stored {
	out := n.before[:0]
	for _, k := range keys {
		var st stored
		if n.db.Exists(k) {
			kind, value := n.valueOf(k)
			st = stored{true, kind, value}
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
		if kind, value := n.valueOf(k); kind != before[i].kind || value != before[i].value {
			return k, trace.KeyOverwritten
		}
	}
	return "", ""
}

// hashValue renders hash k's fields and values, in field order, as
// ":f=v" for each, in one allocation when the hash has up to 8 fields.
func hashValue(m *miniredis.RedisDB, k string) string {
	fs, _ := m.HKeys(k)
	sort.Strings(fs)
	var buf [8]string
	vs, n := buf[:0], 0
	for _, f := range fs {
		v := m.HGet(k, f)
		vs = append(vs, v)
		n += 2 + len(f) + len(v)
	}
	var b strings.Builder
	b.Grow(n)
	for i, f := range fs {
		b.WriteByte(':')
		b.WriteString(f)
		b.WriteByte('=')
		b.WriteString(vs[i])
	}
	return b.String()
}

// valueOf renders a key's type and value as two comparable strings.
func (n *Node) valueOf(k string) (kind, value string) {
	m := n.db
	switch kind = m.Type(k); kind {
	case "string":
		v, _ := m.Get(k)
		return kind, v
	case "hash":
		return kind, hashValue(m, k)
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
