package explore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// spin burns a job-dependent amount of CPU so that workers finish out of
// order.
func spin(k int) int {
	x := 0
	for i := range (k * 7919) % 5000 {
		x += i
		if i%512 == 0 {
			runtime.Gosched()
		}
	}
	return x
}

func TestPoolDeliversInJobOrderAndStopsEachGroupAtItsFirstStop(t *testing.T) {
	const jobs = 400
	group := func(k int) int { return k % 4 }
	stopAt := map[int]int{1: 41, 3: 203} // group -> job that says stop
	for _, workers := range []int{1, 3, 8} {
		var got []int
		_, err := pool[int]{
			Workers: workers, Jobs: jobs, Group: group,
			Run: func(k int) int { spin(k); return k },
			Deliver: func(k, r int) (bool, error) {
				if r != k {
					t.Fatalf("job %d delivered result of %d", k, r)
				}
				got = append(got, k)
				at, ok := stopAt[group(k)]
				return ok && at == k, nil
			},
		}.run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var want []int
		for k := range jobs {
			if at, ok := stopAt[group(k)]; !ok || k <= at {
				want = append(want, k)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%d workers: delivered %v, want %v", workers, got, want)
		}
	}
}

func TestPoolErrorAndCancelLeaveNoWorkerRunning(t *testing.T) {
	boom := errors.New("boom")
	_, err := pool[int]{Workers: 4, Jobs: 10000, Run: spin,
		Deliver: func(k, _ int) (bool, error) {
			if k == 30 {
				return false, boom
			}
			return false, nil
		}}.run(context.Background())
	if err != boom {
		t.Fatalf("err %v, want boom", err)
	}
	if n := liveWorkers.Load(); n != 0 {
		t.Fatalf("%d workers still running after an error", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	delivered := 0
	interrupted, err := pool[int]{Workers: 4, Jobs: 10000, Run: spin,
		Deliver: func(k, _ int) (bool, error) {
			delivered++
			if k == 50 {
				cancel()
			}
			return false, nil
		}}.run(ctx)
	if err != nil || !interrupted || delivered != 51 {
		t.Fatalf("interrupted=%v err=%v after %d deliveries", interrupted, err, delivered)
	}
	if n := liveWorkers.Load(); n != 0 {
		t.Fatalf("%d workers still running after a cancel", n)
	}
}

// TestExploreErrorLeavesNoWorkerRunning makes saving the first trace fail
// (a directory sits where the file goes): Explore returns the error, and
// its workers are gone.
func TestExploreErrorLeavesNoWorkerRunning(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "mutual-exclusion-premature-expiry.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	_, err := Explore(context.Background(), ExploreConfig{Base: exploreBase, Runs: 5000, SeedStart: 1, Workers: 4, Out: dir}, nil)
	if err == nil || !strings.Contains(err.Error(), "mutual-exclusion-premature-expiry.json") {
		t.Fatalf("err %v, want the failed write", err)
	}
	if n := liveWorkers.Load(); n != 0 {
		t.Fatalf("%d workers still running", n)
	}
	// A worker that has just returned may still be counted for a moment,
	// longer on a loaded machine: wait up to a minute for it to go.
	for range 60_000 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%d goroutines before, %d after", before, runtime.NumGoroutine())
}
