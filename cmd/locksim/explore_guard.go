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
	"slices"
	"strings"
	"syscall"

	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/explore"
)

// maxRuns bounds --runs so that seed arithmetic stays exact.
const maxRuns = 1_000_000_000

// guardExplore checks what the flags alone cannot (the seed range), caps
// the workers at the runs and the cores, takes the --out directory for
// this explore (refusing one that holds an earlier explore's output unless
// force, which then removes that output), and returns a context that
// SIGINT and SIGTERM cancel (windDown; a partial summary follows). The
// returned function releases all.
func guardExplore(cfg *explore.ExploreConfig, force bool) (context.Context, func(), error) {
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
	if force && cfg.Out == "" {
		return nil, nil, errors.New("--force needs --out (it replaces an earlier explore's output there)")
	}
	if cfg.Out != "" {
		// Refused before anything is made or locked, and again once
		// locked: another explore may have finished there meanwhile.
		if err := earlierOut(cfg.Out, false); err != nil && !force {
			if busyOut(cfg.Out) {
				return nil, nil, inUse(cfg.Out)
			}
			return nil, nil, err
		}
		f, r, err := lockOut(cfg.Out)
		if err != nil {
			return nil, nil, err
		}
		if err := earlierOut(cfg.Out, force); err != nil {
			r()
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
		return nil, nil, fmt.Errorf("--out %s: cannot write in it: %v", dir, bareErr(err))
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, nil, inUse(dir)
	}
	return f, func() { f.Close() }, nil
}

func inUse(dir string) error {
	return fmt.Errorf("--out %s is in use by another explore (it holds %s)", dir, filepath.Join(dir, explore.LockFile))
}

// busyOut reports whether another explore holds dir's lock now, without
// making or changing anything.
func busyOut(dir string) bool {
	f, err := os.OpenFile(filepath.Join(dir, explore.LockFile), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil
}

// earlierOut refuses an --out directory that holds an earlier explore's
// summary, traces or timelines: this explore's would mix with them. With
// remove, it removes those files instead (explore's own, nothing else).
func earlierOut(dir string, remove bool) error {
	names, err := explore.Earlier(dir)
	if err != nil {
		return fmt.Errorf("--out %s: cannot read it: %v", dir, bareErr(err))
	}
	if len(names) == 0 {
		return nil
	}
	if !remove {
		return fmt.Errorf("--out %s holds an earlier explore's output (%s): give another directory, or add --force to replace it",
			dir, earlierText(names))
	}
	for _, n := range names {
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("--out %s: cannot remove the earlier %s: %v", dir, n, bareErr(err))
		}
	}
	return nil
}

// earlierText names an earlier output: its summary and how many other
// files.
func earlierText(names []string) string {
	parts := []string{}
	rest := len(names)
	if slices.Contains(names, explore.SummaryFile) {
		parts = append(parts, explore.SummaryFile)
		rest--
	}
	if rest > 0 {
		parts = append(parts, explore.Plural(rest, "trace or timeline file"))
	}
	return strings.Join(parts, " and ")
}

// bareErr is a file-system error without the file name it carries (the
// caller names the user's path).
func bareErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
