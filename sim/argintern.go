package sim

import (
	"encoding/binary"
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

// traceArgs is args as the trace shows it: a script body (args[1], with
// body) shortened to its SHA1 name (the body kept in the trace's script
// table), shared with an identical earlier list when there is one.
func (w *World) traceArgs(args []string, body bool) []string {
	if len(args) == 0 {
		return nil
	}
	script := ""
	if body && len(args) > 1 {
		script = w.scriptName(args[1])
	}
	t := &w.alloc.args
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
	if name, ok := w.lastScript.find(body); ok {
		return name // one of the constants named lately: no map lookup
	}
	name, ok := w.scriptNames[body]
	if !ok {
		sha := w.scriptSHA1(body)
		w.rec.trace.Scripts[sha] = body
		name = "sha1:" + sha
		w.scriptNames[body] = name
	}
	w.lastScript.add(body, name)
	return name
}

// lastScript holds the bodies scriptName named last, by address: a
// protocol passes the same few string constants each time.
type lastScript struct {
	hot  [4]namedScript
	next int // the entry add replaces next
}

type namedScript struct {
	body *byte
	n    int
	name string
}

func (l *lastScript) find(body string) (string, bool) {
	p := unsafe.StringData(body)
	for i := range l.hot {
		if h := &l.hot[i]; h.body == p && h.n == len(body) && h.name != "" {
			return h.name, true
		}
	}
	return "", false
}

func (l *lastScript) add(body, name string) {
	l.hot[l.next] = namedScript{unsafe.StringData(body), len(body), name}
	l.next = (l.next + 1) % len(l.hot)
}

// hashArgs hashes the traced arguments, 8 bytes at a time, each one's
// length mixed in with its last bytes (so that "a","b" and "ab" differ).
// The hash only picks a slot of the table.
func hashArgs(args []string, script string) uint64 {
	h := uint64(len(args))
	for i, a := range args {
		if i == 1 && script != "" {
			a = script
		}
		b := unsafe.Slice(unsafe.StringData(a), len(a))
		for ; len(b) >= 8; b = b[8:] {
			h = mixArgs(h ^ binary.LittleEndian.Uint64(b))
		}
		h = mixArgs(h ^ tailWord(b) ^ uint64(len(a))<<56)
	}
	return h
}

// tailWord packs b's last bytes (fewer than 8) into a word.
func tailWord(b []byte) uint64 {
	if len(b) >= 4 {
		return uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[len(b)-4:]))<<32
	}
	var w uint64
	for i, c := range b {
		w |= uint64(c) << (8 * i)
	}
	return w
}

func mixArgs(h uint64) uint64 {
	h *= 0x9e3779b97f4a7c15
	return h ^ h>>32
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

// scriptSHA1 is body's SHA1, computed once a process for the run's
// scripts (Config.Scripts).
func (w *World) scriptSHA1(body string) string {
	for _, s := range w.cfg.Scripts {
		if s.Source == body {
			return s.SHA1()
		}
	}
	return luafast.SHA1(body)
}
