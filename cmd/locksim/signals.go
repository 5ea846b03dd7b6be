package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/locksim/locksim/traces"
)

// graceful is set while a command handles SIGINT and SIGTERM itself
// (windDown): the first signal is then left to it.
var graceful atomic.Bool

// cleanOnSignal removes the temporary files of unfinished writes when
// SIGINT or SIGTERM ends the process, and exits 130 or 143 as a shell
// does. It returns a function that stops watching.
func cleanOnSignal() func() {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case sig := <-ch:
				if graceful.CompareAndSwap(true, false) {
					continue // the command winds down; a second signal ends it
				}
				traces.RemoveTemps()
				os.Exit(signalExit(sig))
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}

// signalExit is a shell's exit status for a process ended by sig.
func signalExit(sig os.Signal) int {
	if sig == syscall.SIGTERM {
		return 143
	}
	return 130
}

// stopper is how a long command (explore, matrix, verify) stops on the
// first SIGINT or SIGTERM: its context is cancelled and the command winds
// down by itself (explore writes a partial summary; matrix and verify
// drop their unfinished cells). A second signal ends the process.
type stopper struct {
	ctx  context.Context
	sig  atomic.Value // os.Signal, once one arrived
	stop func()
}

// windDown starts watching for the first signal.
func windDown() *stopper {
	ctx, cancel := context.WithCancel(context.Background())
	s := &stopper{ctx: ctx}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			s.sig.Store(sig)
			cancel()
		case <-done:
		}
	}()
	graceful.Store(true)
	s.stop = func() { signal.Stop(ch); close(done); cancel(); graceful.Store(false) }
	return s
}

// interrupted reports, for a command without a partial result, that a
// signal stopped it, and returns the shell's exit status for that signal.
func (s *stopper) interrupted(stderr io.Writer, cmd string) (int, bool) {
	sig, ok := s.sig.Load().(os.Signal)
	if !ok {
		return 0, false
	}
	fmt.Fprintf(stderr, "locksim %s: interrupted by %v: cells not finished have no verdict\n", cmd, sig)
	return signalExit(sig), true
}
