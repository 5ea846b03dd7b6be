// Package fidelity proves the simulator's in-process Redis node (miniredis
// driven by package sim) against a real redis-server.
//
// The package holds only tests: a conformance suite that sends every
// command and every script the lock protocols send, plus random sequences
// of them drawn with rapid, to both a sim.Standalone node and a
// redis-server the tests start on a free loopback port, and compares the
// replies and the key state. Each difference found is a deviation,
// documented in DEVIATIONS.md beside this file and pinned by a test named
// TestDeviation*. The suite skips when redis-server is not installed.
package fidelity
