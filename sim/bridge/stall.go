package bridge

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// stallEvery is how often, in real time, Run looks for a bubble whose
// clock cannot move (see stalled); a stall is reported at the second
// look that finds the same goroutines in the same places.
const stallEvery = 5 * time.Second

// watchStall reports, through fail, a run whose virtual clock is stuck
// for good, and returns when stop closes. It runs outside the bubble,
// in real time: a stuck bubble runs no goroutine, so nothing inside it
// could notice. name is the bubble's name once its root has started.
func watchStall(name *atomic.Pointer[string], every time.Duration, stop <-chan struct{}, fail func(string)) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	last := ""
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		p := name.Load()
		if p == nil {
			continue
		}
		where, state := stalled(allStacks(), *p)
		if where != "" && state == last {
			fail(stallMessage(where))
			return
		}
		last = state
	}
}

// stalled reports whether the goroutines of bubble, in the traceback
// stacks, can never move again: every one waits durably (for virtual
// time or for another goroutine of the bubble) or for a sync.Mutex or
// RWMutex, and one waits for a mutex. synctest lets virtual time pass
// only when none is in a mutex wait, so a mutex whose holder waits for
// time (go-redis's PubSub reconnecting under its lock while the health
// check pings) stops the clock for good. where is that waiter's frame
// (frameOf), state the bubble's goroutines as printed, to tell that
// nothing moved between two looks; where is empty if it can move.
func stalled(stacks, bubble string) (where, state string) {
	var b strings.Builder
	for head, g := range goroutinesOf(stacks, bubble) {
		switch {
		case strings.Contains(head, "(durable)"):
		case strings.Contains(head, "[sync.Mutex.Lock") || strings.Contains(head, "[sync.RWMutex."):
			if where == "" {
				where = frameOf(g)
				if where == "" {
					where = "a goroutine"
				}
			}
		default:
			return "", "" // running, or waiting on something outside the bubble
		}
		b.WriteString(g)
		b.WriteString("\n\n")
	}
	if where == "" {
		return "", ""
	}
	return where, b.String()
}

func stallMessage(where string) string {
	return fmt.Sprintf("bridge: the run's virtual clock is stuck: %s waits for a sync.Mutex while every other goroutine of the run waits for virtual time, which testing/synctest does not let pass during a sync.Mutex wait (a known limit of the bridge: see the sim/bridge package doc)", where)
}
