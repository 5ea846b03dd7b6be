package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/explore"
)

// maxRuns bounds --runs so that seed arithmetic stays exact.
const maxRuns = 1_000_000_000

// guardExplore checks what the flags alone cannot (the seed range), caps the workers at the runs and the cores, takes the --out
// directory for this explore, and returns a context that SIGINT and SIGTERM
// cancel (windDown; a partial summary follows). The returned function releases all.
func guardExplore(cfg *explore.ExploreConfig) (context.Context, func(), error) {
	if cfg.Runs > maxRuns {
		return nil, nil, fmt.Errorf("--runs must be at most %d", maxRuns)
	}
	if cfg.Base.Clients > 1000 {
		return nil, nil, errors.New("--clients must be between 1 and 1000")
	}
	if cfg.Shards > maxRuns {
		return nil, nil, fmt.Errorf("--shard N must be at most %d", maxRuns)
	}
	shards := uint64(max(cfg.Shards, 1))
	if span := uint64(cfg.Runs) * shards; cfg.SeedStart > math.MaxUint64-span+1 {
		return nil, nil, fmt.Errorf("--seed-start %d with %d runs passes the largest seed %d: seeds would wrap", cfg.SeedStart, uint64(cfg.Runs)*shards, uint64(math.MaxUint64))
	}
	cfg.Workers = capWorkers(cfg.Workers, cfg.Runs)
	release := func() {}
	var lock *os.File
	if cfg.Out != "" {
		f, r, err := lockOut(cfg.Out)
		if err != nil {
			return nil, nil, err
		}
		lock, release = f, r
	}
	sig := windDown()
	if lock != nil {
		// Who holds the directory, written once signals are handled.
		lock.Truncate(0)
		fmt.Fprintf(lock, "%d\n", os.Getpid())
	}
	return sig.ctx, func() { sig.stop(); release() }, nil
}

// capWorkers limits --workers to the runs and the cores (0: all cores).
func capWorkers(w, runs int) int {
	if w <= 0 || w > runtime.NumCPU() {
		w = runtime.NumCPU()
	}
	return max(1, min(w, runs))
}

// lockOut makes dir and takes an exclusive lock on dir/.locksim.lock, so a
// second explore writing the same directory is refused instead of mixing
// its traces and summary with the first one's. The kernel drops the lock
// when the process ends, however it ends.
func lockOut(dir string) (*os.File, func(), error) {
	if err := traces.MakeDir(dir); err != nil {
		return nil, nil, fmt.Errorf("--out %s: cannot make the directory: %v", dir, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, explore.LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, nil, fmt.Errorf("--out %s: cannot write in it: %v", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("--out %s is in use by another explore (it holds %s)", dir, f.Name())
	}
	return f, func() { f.Close() }, nil
}
