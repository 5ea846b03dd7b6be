package sim

import (
	"hash/maphash"
	"strings"
	"unsafe"

	"github.com/locksim/locksim/sim/luafast"
)

// argTable holds recently traced argument lists, so that a command sent
// again with the same arguments (a waiter retrying its acquire script
// after every release) shares one slice in the trace instead of a copy
// per event. Slices in the trace are never written to, so sharing is
// safe; a slot holds the last list that hashed to it.
type argTable struct {
	slots [][]string
	mask  uint64
	room  []string // where the next copies go: cut off, never reused
}

// argRoom is how many arguments one allocation of room holds.
const argRoom = 64

// copyOf is a copy of args in room, capped so that an append copies.
func (t *argTable) copyOf(args []string) []string {
	if len(t.room) < len(args) {
		t.room = make([]string, max(argRoom, len(args)))
	}
	out := t.room[:len(args):len(args)]
	t.room = t.room[len(args):]
	copy(out, args)
	return out
}

// argSlots is the table's size for a world of procs processes: a few
// slots per process, so that each one's usual commands stay cached.
func argSlots(procs int) int {
	n := 16
	for n < 4*procs && n < 1<<13 {
		n <<= 1
	}
	return n
}

// traceArgs is args as the trace shows it: a script body shortened to its
// SHA1 name (the body kept in the trace's script table), shared with an
// identical earlier list when there is one.
func (w *World) traceArgs(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	script := ""
	if len(args) > 1 && (strings.EqualFold(args[0], "EVAL") || strings.EqualFold(args[0], "EVAL_RO")) {
		script = w.scriptName(args[1])
	}
	t := &w.args
	if t.slots == nil {
		t.slots = make([][]string, argSlots(len(w.procs)))
		t.mask = uint64(len(t.slots) - 1)
	}
	slot := &t.slots[hashArgs(args, script)&t.mask]
	if sameArgs(*slot, args, script) {
		return *slot
	}
	out := t.copyOf(args)
	if script != "" {
		out[1] = script
	}
	*slot = out
	return out
}

// scriptName is the trace's name of a script body, recording the body in
// the trace's script table the first time.
func (w *World) scriptName(body string) string {
	if unsafe.StringData(body) == w.lastScript.body && len(body) == w.lastScript.n {
		return w.lastScript.name // the same constant as last time: no map lookup
	}
	name, ok := w.scriptNames[body]
	if !ok {
		sha := luafast.SHA1(body)
		w.rec.trace.Scripts[sha] = body
		name = "sha1:" + sha
		w.scriptNames[body] = name
	}
	w.lastScript = lastScript{unsafe.StringData(body), len(body), name}
	return name
}

// lastScript is the body scriptName named last, by address: a protocol
// passes the same string constant each time.
type lastScript struct {
	body *byte
	n    int
	name string
}

// argSeed seeds hashArgs. The hash only picks a slot of the table, whose
// contents never depend on it, so a per-process seed is safe.
var argSeed = maphash.MakeSeed()

// hashArgs hashes the traced arguments: each one's hash, mixed in order.
func hashArgs(args []string, script string) uint64 {
	h := uint64(len(args))
	for i, a := range args {
		if i == 1 && script != "" {
			a = script
		}
		h = (h ^ maphash.String(argSeed, a)) * 0x9e3779b97f4a7c15
	}
	return h ^ h>>29
}

// sameArgs reports whether cached is args as traced.
func sameArgs(cached, args []string, script string) bool {
	if len(cached) != len(args) {
		return false
	}
	for i, a := range args {
		if i == 1 && script != "" {
			a = script
		}
		if cached[i] != a {
			return false
		}
	}
	return true
}
