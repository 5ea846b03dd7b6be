package bridge

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// lockAndUnlock waits for mu: in a bubble, a wait synctest does not
// count as blocked.
func lockAndUnlock(mu *sync.Mutex) {
	mu.Lock()
	mu.Unlock() //nolint:staticcheck // the wait is the point
}

// TestStalledClockReported builds the stall go-redis's PubSub can cause:
// a goroutine waits for a mutex whose holder (here the bubble's root,
// sleeping) waits for virtual time. The watchdog must name the waiter;
// it then unlocks the mutex from outside (a sync.Mutex belongs to no
// goroutine), so the bubble can finish.
func TestStalledClockReported(t *testing.T) {
	var mu sync.Mutex
	var name atomic.Pointer[string]
	stop := make(chan struct{})
	defer close(stop)
	got := make(chan string, 1)
	go watchStall(&name, 20*time.Millisecond, stop, func(msg string) {
		got <- msg
		mu.Unlock()
	})
	missed := time.AfterFunc(30*time.Second, func() { mu.Unlock() }) // never hang the suite
	synctest.Test(t, func(t *testing.T) {
		b := bubbleOf()
		name.Store(&b)
		mu.Lock()
		go lockAndUnlock(&mu)
		time.Sleep(time.Hour)
	})
	select {
	case msg := <-got:
		missed.Stop()
		for _, want := range []string{"virtual clock is stuck", "bridge.lockAndUnlock (stall_test.go:", "sync.Mutex"} {
			if !strings.Contains(msg, want) {
				t.Errorf("report %q lacks %q", msg, want)
			}
		}
	default:
		t.Fatal("the stuck clock was not reported within 30 s")
	}
}

// TestRunningBubbleNotStalled: a bubble with a mutex waiter and a
// goroutine still running is not stalled: the runner may release it.
func TestRunningBubbleNotStalled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		mu.Lock()
		go lockAndUnlock(&mu)
		for !strings.Contains(allStacks(), "[sync.Mutex.Lock, "+bubbleOf()+"]") {
			runtime.Gosched() // (lets the goroutine reach its wait)
		}
		if where, _ := stalled(allStacks(), bubbleOf()); where != "" {
			t.Errorf("a bubble whose root runs reported stalled at %s", where)
		}
		mu.Unlock()
	})
}
