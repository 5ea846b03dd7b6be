package bridge

import (
	"bytes"
	"fmt"
	"iter"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// grace is how long, in virtual time, the calls still running when the
// run ends get to return once their context is cancelled. go-redis
// returns at once on a cancelled context and the bridge closes every
// connection, so a call still running after it is blocked outside the
// simulated Redis: a lock that ignores its context, waits on a channel
// nobody will send on, or sleeps in a loop.
const grace = time.Minute

// running is a call whose goroutine has not returned yet.
type running struct {
	client string // the thread's identity in the trace
	seq    uint64 // the thread's call number
}

// started records that goroutine id runs a call of th.
func (b *Bridge) started(id int64, th *thread, seq uint64) {
	b.mu.Lock()
	b.running[id] = running{th.client, seq}
	b.mu.Unlock()
}

// returned records that goroutine id's call returned.
func (b *Bridge) returned(id int64) {
	b.mu.Lock()
	delete(b.running, id)
	b.mu.Unlock()
	select {
	case b.callDone <- struct{}{}:
	default:
	}
}

// awaitCalls waits, up to grace of virtual time, for the calls still
// running at the end of the run (their contexts are cancelled and their
// connections closed by now), and fails the run with a diagnosis naming
// the first client whose call did not return.
func (b *Bridge) awaitCalls() {
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		n := len(b.running)
		b.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-b.callDone:
		case <-deadline.C:
			b.w.Fail(b.blocked())
			return
		}
	}
}

// BlockedError is a run whose Go code did not return: a call of a
// client still blocked grace after the run ended and cancelled its
// context, waiting on something the simulated Redis cannot end.
type BlockedError struct {
	// Client is the blocked call's client (c2), and Call where it
	// waits: the first frame of its goroutine outside the runtime, sync,
	// time and context ("pkg.(*Lock).Lock (lock.go:42)"), empty when
	// its stack could not be read.
	Client, Call string
	// Others are the other clients blocked the same way.
	Others []string
}

func (e *BlockedError) Error() string {
	call := e.Call
	if call == "" {
		call = "a call"
	}
	s := fmt.Sprintf("client %s blocked in %s outside the simulated Redis", e.Client, call)
	if len(e.Others) > 0 {
		s += " (also " + strings.Join(e.Others, ", ") + ")"
	}
	return s + fmt.Sprintf(": still running %v after the run ended and cancelled its context; code run through the bridge (Lock, Unlock, a critical section) must return once its context is cancelled", grace)
}

// blocked describes the calls still running, the first by client name
// and call number.
func (b *Bridge) blocked() *BlockedError {
	b.mu.Lock()
	var first int64
	var firstRun running
	clients := map[string]bool{}
	for id, r := range b.running {
		clients[r.client] = true
		if first == 0 || r.client < firstRun.client || r.client == firstRun.client && r.seq < firstRun.seq {
			first, firstRun = id, r
		}
	}
	b.mu.Unlock()
	e := &BlockedError{Client: firstRun.client, Call: blockedIn(first)}
	for c := range clients {
		if c != e.Client {
			e.Others = append(e.Others, c)
		}
	}
	slices.Sort(e.Others)
	return e
}

// goid is the calling goroutine's id, as tracebacks print it.
func goid() int64 {
	var buf [64]byte
	s := buf[:runtime.Stack(buf[:], false)]
	s, _ = bytes.CutPrefix(s, []byte("goroutine "))
	if i := bytes.IndexByte(s, ' '); i > 0 {
		id, _ := strconv.ParseInt(string(s[:i]), 10, 64)
		return id
	}
	return 0
}

// bubbleOf is the bubble the caller runs in, as tracebacks print it
// ("synctest bubble 3"), or "".
func bubbleOf() string {
	var buf [128]byte
	s := string(buf[:runtime.Stack(buf[:], false)])
	line, _, _ := strings.Cut(s, "\n")
	if i := strings.Index(line, "synctest bubble "); i >= 0 {
		return strings.TrimRight(line[i:], "]:")
	}
	return ""
}

// leftover describes the goroutines of bubble still blocked after its
// root returned.
func leftover(bubble string) error {
	n, first := 0, ""
	for _, g := range goroutinesOf(allStacks(), bubble) {
		if n++; first == "" {
			first = frameOf(g)
		}
	}
	if first == "" {
		first = "a call"
	}
	return fmt.Errorf("a goroutine of the run (%d in all) blocked in %s outside the simulated Redis: still running %v after the run ended and cancelled every context; code run through the bridge must return once its context is cancelled", n, first, drain)
}

// goroutinesOf yields the header line and traceback of each goroutine
// of bubble ("synctest bubble 3") in stacks (allStacks).
func goroutinesOf(stacks, bubble string) iter.Seq2[string, string] {
	return func(yield func(head, g string) bool) {
		for g := range strings.SplitSeq(stacks, "\n\n") {
			head, _, _ := strings.Cut(g, "\n")
			if strings.Contains(head, bubble+"]") && !yield(head, g) {
				return
			}
		}
	}
}

// allStacks is the traceback of every goroutine.
func allStacks() string {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// blockedIn is where goroutine id waits (see frameOf); empty if the
// goroutine is not found.
func blockedIn(id int64) string {
	head := "goroutine " + strconv.FormatInt(id, 10) + " ["
	for g := range strings.SplitSeq(allStacks(), "\n\n") {
		if strings.HasPrefix(g, head) {
			return frameOf(g)
		}
	}
	return ""
}

// frameOf is where goroutine g (its traceback) waits: the first frame of
// its stack outside the runtime, sync, time and context, with its file's
// base name and line.
func frameOf(g string) string {
	lines := strings.Split(g, "\n")
	for i := 1; i+1 < len(lines); i += 2 {
		fn := lines[i]
		if strings.HasPrefix(fn, "created by ") {
			break
		}
		if k := strings.LastIndexByte(fn, '('); k > 0 {
			fn = fn[:k] // the arguments
		}
		if library(fn) {
			continue
		}
		loc := strings.TrimSpace(lines[i+1])
		if k := strings.LastIndex(loc, " +0x"); k > 0 {
			loc = loc[:k] // the pc offset
		}
		return fmt.Sprintf("%s (%s)", short(fn), path.Base(loc))
	}
	return ""
}

// library reports whether fn is a function of the packages a blocked
// goroutine waits in rather than calls from.
func library(fn string) bool {
	for _, p := range []string{"runtime.", "internal/", "sync.", "sync/", "time.", "context."} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// short drops the import path before a function's package name:
// "github.com/x/lock.(*Lock).Lock" is "lock.(*Lock).Lock", and a major
// version keeps its module's name: "go-redis/v9.(*PubSub).Ping".
func short(fn string) string {
	i := strings.LastIndexByte(fn, '/')
	if i < 0 {
		return fn
	}
	if pkg, _, _ := strings.Cut(fn[i+1:], "."); len(pkg) > 1 && pkg[0] == 'v' && strings.Trim(pkg[1:], "0123456789") == "" {
		if j := strings.LastIndexByte(fn[:i], '/'); j >= 0 {
			return fn[j+1:]
		}
	}
	return fn[i+1:]
}
