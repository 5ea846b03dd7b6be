package main

import (
	"bytes"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMatrixAndVerifyStopOnSignals: matrix and verify stop on the first
// SIGINT or SIGTERM as explore does: one line saying so, and the shell's
// status for the signal.
func TestMatrixAndVerifyStopOnSignals(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		args []string
		code int
	}{
		{syscall.SIGTERM, []string{"matrix", "--runs", "100000", "--workers", "1"}, 143},
		{syscall.SIGINT, []string{"verify", "--workers", "1"}, 130},
	} {
		var stdout, stderr bytes.Buffer
		done := make(chan int, 1)
		go func() { done <- Main(tc.args, &stdout, &stderr) }()
		for !graceful.Load() {
			select {
			case code := <-done:
				t.Fatalf("%v ended before watching signals: exit %d %s", tc.args, code, stderr.String())
			case <-time.After(time.Millisecond): // polling for readiness, not a timed assertion
			}
		}
		syscall.Kill(syscall.Getpid(), tc.sig)
		code := <-done
		msg := stderr.String()
		if code != tc.code || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "interrupted by") {
			t.Errorf("%v after %v: exit %d, stderr %q", tc.args, tc.sig, code, msg)
		}
		if graceful.Load() {
			t.Errorf("%v: still watching signals after it returned", tc.args)
		}
	}
}
