package bridge

import (
	"context"
	"math/rand"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/cryptotest"
	"testing/synctest"
	"time"

	"github.com/redis/go-redis/v9"
)

var silence sync.Once

// drain is how long, in virtual time, goroutines get to return once the
// run is over; one still blocked after it fails the test (synctest's
// deadlock report lists it).
const drain = time.Hour

// quiet is a go-redis logger that drops every line.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// Run runs fn in a new testing/synctest bubble, with the process-wide
// randomness that Go code may draw behind the bridge's back seeded from
// seed: crypto/rand (testing/cryptotest) and math/rand's global source,
// which go-redis draws its retry backoff from and redsync its retry delay.
// Since Go 1.24 rand.Seed does nothing unless GODEBUG has
// randseednop=0: Run sets it for the rest of t (t.Setenv). go-redis's
// own log lines (sentinel switches, retries) are discarded: Run installs
// a silent logger with redis.SetLogger, for the whole test binary. Like
// cryptotest and t.Setenv, Run cannot be used in parallel tests.
//
// Run returns an error, instead of synctest's deadlock panic, when
// goroutines fn started are still blocked a virtual hour after fn
// returned (a goroutine that ignores its context): it names where the
// first of them waits. They stay blocked for the rest of the test binary.
// A run whose virtual clock is stuck for good (a sync.Mutex wait whose
// holder waits for virtual time: watchStall) panics, from a goroutine
// outside the bubble, with one line naming the waiting call.
func Run(t *testing.T, seed uint64, fn func()) (err error) {
	t.Helper()
	silence.Do(func() { redis.SetLogger(quiet{}) })
	if g := os.Getenv("GODEBUG"); !strings.Contains(g, "randseednop=0") {
		if g != "" {
			g += ","
		}
		t.Setenv("GODEBUG", g+"randseednop=0")
	}
	bubble := ""
	defer func() {
		if p := recover(); p != nil {
			e, ok := p.(error)
			if !ok || !strings.HasPrefix(e.Error(), "deadlock: main bubble goroutine has exited") || bubble == "" {
				panic(p)
			}
			err = leftover(bubble)
		}
	}()
	var name atomic.Pointer[string]
	stop := make(chan struct{})
	defer close(stop)
	go watchStall(&name, stallEvery, stop, func(msg string) { panic(msg) })
	synctest.Test(t, func(t *testing.T) {
		bubble = bubbleOf()
		name.Store(&bubble)
		cryptotest.SetGlobalRandom(t, seed)
		rand.Seed(int64(seed)) //nolint:staticcheck // the global source is what libraries draw from
		fn()
		// Goroutines still winding down (a go-redis retry backoff, a
		// dial timing out) need the clock to move: it stops once the
		// bubble's root returns.
		time.Sleep(drain)
		// A goroutine that ignores its context may still be running
		// (woken at this instant): it must block before t's cleanups
		// put back the randomness it draws from.
		synctest.Wait()
	})
	return nil
}
