package main

import (
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/locksim/locksim/traces"
)

// graceful is set while a command (explore) handles SIGINT and SIGTERM
// itself: the first signal is then left to it.
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
				code := 130
				if sig == syscall.SIGTERM {
					code = 143
				}
				os.Exit(code)
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}
