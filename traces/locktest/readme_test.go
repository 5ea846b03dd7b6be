package locktest_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/traces/locktest"
)

// The README's example: a lock of one's own, written against the sim's
// thread API the way the catalog's protocols are, registered with
// protocols.Register and checked under GC pauses and failover.

// myLock is SET key token NX PX lease to acquire, and a Lua
// compare-and-delete to release.
type myLock struct {
	env   protocols.Env
	key   string
	token string
}

const myRelease = `if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0`

func (l *myLock) Acquire(t *sim.Thread) (bool, error) {
	l.token = fmt.Sprintf("%s-%016x", t.Client(), t.Rand().Uint64())
	px := strconv.FormatInt(l.env.Lease.Milliseconds(), 10)
	r, err := t.Call(l.env.Master, "SET", l.key, l.token, "NX", "PX", px)
	if err != nil {
		return false, err
	}
	return r.Str == "OK", nil
}

func (l *myLock) Release(t *sim.Thread) (bool, error) {
	r, err := t.Call(l.env.Master, "EVAL", myRelease, "1", l.key, l.token)
	if err != nil {
		return false, err
	}
	return r.Int == 1, nil
}

func init() {
	err := protocols.Register(protocols.Protocol{
		Name:    "my-lock",
		Summary: "SET NX PX with a random token; Lua compare-and-delete release",
		Lease:   10 * time.Second,
		New: func(env protocols.Env, key string) protocols.Lock {
			return &myLock{env: env, key: key}
		},
	})
	if err != nil {
		panic(err)
	}
}

// myLockConfig is what the README's TestMyLock checks.
var myLockConfig = locktest.Config{
	Protocol:   "my-lock",
	Faults:     []string{"gc-pause", "failover"},
	Topologies: []string{"replicated"}, // a master, a replica or two, a sentinel
}

// TestMyLock is the README's test, as a team would write it. It fails,
// as it should (a pause or a failover breaks this lock), so it only runs
// with LOCKTEST_README=1; TestMyLockIsCaught checks the same failure.
func TestMyLock(t *testing.T) {
	if os.Getenv("LOCKTEST_README") == "" {
		t.Skip("the README's failing example: run with LOCKTEST_README=1 to see its output")
	}
	locktest.Check(t, myLockConfig)
}

func TestMyLockIsCaught(t *testing.T) {
	cfg := myLockConfig
	cfg.Checks = 1000 // stops at the first failure
	cfg.TraceDir = t.TempDir()
	if raceEnabled {
		cfg.ShrinkRuns = 800
	}
	r := locktest.NewRecorder(t)
	locktest.Check(r, cfg)
	msg := r.Message()
	if !r.Failed() {
		t.Fatal("my-lock held under gc-pause and failover: Check missed a known failure")
	}
	t.Logf("Check failed, as expected:\n%s", msg)
	title, _, _ := strings.Cut(msg, "\n")
	// A pause longer than the lease, or a failover that loses the key.
	if !strings.HasPrefix(title, "locksim: mutual-exclusion violated (") {
		t.Fatalf("first line %q", title)
	}
	// my-lock is not in the locksim CLI's catalog: the replay command
	// is a go test run of this test with the protocol registered.
	if !strings.Contains(msg, "go test -run '^TestMyLockIsCaught$' -locktest.replay=") {
		t.Fatalf("no go test replay command in:\n%s", msg)
	}
}
