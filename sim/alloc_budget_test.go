package sim_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
)

// redissonAcquire is Redisson 3.16's lock script (tryLockInnerAsync), as
// the redisson protocol sends it.
const redissonAcquire = "if (redis.call('exists', KEYS[1]) == 0) then " +
	"   redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
	"   redis.call('pexpire', KEYS[1], ARGV[1]); " +
	"   return nil; " +
	"end; " +
	"if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then " +
	"   redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
	"   redis.call('pexpire', KEYS[1], ARGV[1]); " +
	"   return nil; " +
	"end; " +
	"return redis.call('pttl', KEYS[1]);"

// One Redisson acquire through a node (the script, the keyspace change it
// makes, its trace event) and a rival's refusal stay within their
// allocation budget: the guard against the hot path growing allocations.
func TestRedissonAcquireAllocBudget(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("allocation counts differ under -race")
	}
	p, err := protocols.Lookup("redisson")
	if err != nil {
		t.Fatal(err)
	}
	s := sim.NewStandalone(1, p.Scripts...) // the scripts' fast paths, as a run of redisson has them
	defer s.Close()
	i := 0
	keys := make([]string, 2048)
	for k := range keys {
		keys[k] = "lock:" + strconv.Itoa(k)
	}
	acquire := func() {
		if i%len(keys) == 0 {
			s.Do(0, "FLUSHALL")
		}
		key := keys[i%len(keys)]
		i++
		s.SetNow(s.Now() + time.Millisecond)
		if r := s.Do(0, "EVAL", redissonAcquire, "1", key, "30000", "u1:1"); r.Kind == '-' {
			t.Fatal(r.String())
		}
		if r := s.Do(1, "EVAL", redissonAcquire, "1", key, "30000", "u2:1"); r.Kind != ':' {
			t.Fatalf("the rival got %s", r.String())
		}
	}
	acquire()
	allocs := testing.AllocsPerRun(500, acquire)
	// 12 at simhouse (Redisson's fast path; 31 through Lua).
	const budget = 14
	t.Logf("%.1f allocations per acquire and refusal", allocs)
	if allocs > budget {
		t.Errorf("%.1f allocations per acquire and refusal, budget %d", allocs, budget)
	}
}
