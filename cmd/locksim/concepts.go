package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/sim/trace"
)

// conceptsTopic is `locksim help concepts`: every term locksim's output
// uses without saying it, explained once.
func conceptsTopic(w io.Writer) {
	var states strings.Builder
	for _, st := range (checker.Coverage{}).States() {
		states.WriteString("  " + st.Name + ":\n    " + strings.Join(wrap(st.Doc+".", 68), "\n    ") + "\n")
	}
	var damage []string
	for _, c := range (checker.Damage{}).Counts() {
		damage = append(damage, c.Other)
	}
	fmt.Fprintf(w, `The words locksim's output uses.

scenario
  Everything one run depends on: the lock protocol (locksim list), the
  workload that uses it, clients (simulated application processes, c1,
  c2, ...) and their threads (c1/t1: thread t1 of client c1), the lease,
  the Redis deployment (topology) and the fault schedule. A run is a pure
  function of its scenario: the same scenario gives the same trace, byte
  for byte, on any machine.

seed
  The number every random choice of a run comes from (network delays,
  which faults, when). Same seed, same run. explore runs one scenario
  template over many seeds; every result prints the command that replays
  its seed. (In a protocol's source, in list --json, "seed 001" and
  "seed 002" name the design texts locksim started from, not a run's
  seed.)

trace
  The file a run writes with --trace: the scenario, every event with its
  virtual time (t=36.1 s is time in the simulation, not on your clock),
  what each client did, the verdict, and a hash that replay and view
  check before they trust the file.

verdict and evidence
  ok: no property was violated; violation: at least one was, each with
  the clients, key, time and an explanation citing the trace's events
  and faults ("fault #1", numbered as the run's fault list prints them);
  unknown (inconclusive): a budget stopped the run (--max-events) or the
  checker could not decide.

properties
  What a violation broke, by the name output prints and --fail-on takes:
  ownership: a client renewed or released a lease it did not hold.
  mutual-exclusion (--fail-on exclusion): two clients believed they
  held one lock at once.
  damage: the protected data is not what one-at-a-time use would
  leave (see damage below).
  liveness (--liveness): after the last fault healed, a lock stopped
  making progress.

cause
  Why a property broke, as a name (premature-expiry, lost-after-failover,
  foreign-release, ...) and a reason in parentheses (holder paused,
  renewal stalled, ...). explore groups its violations by cause and
  saves the first trace of each.

damage
  What the violations did to the protected data, counted:
  %s
  (%s.)

dangerous states
  What explore counts besides violations ("dangerous states reached
  (runs)"): states a run reached that can lead to a violation, whether
  or not one followed.
%s
swarm
  explore's default (--swarm): each seed also draws which of the given
  fault kinds are on, how many, and the timing settings not given by a
  flag, so one exploration tries many different mixes instead of one.

anchored fault
  A fault placed after a client's operation instead of at a fixed time:
  --fault 'gc-pause:c1@0+41000~c1/acquire/return/ok#1+100' pauses c1 for
  41 s, 100 ms after its 1st acquire returned ok (the @0 is not used).
  Output shows it at the time it fired: "gc-pause c1 at t=36.1 s for
  41000 ms, 100 ms after c1 acquired". The syntax:
  %s

fault kinds
  %s
  locksim list names them; the fault syntax above sets one by hand.

verify's words
  A step is a millisecond at which something happened in the run
  without faults (an operation invoked or returned, a command, a
  thread's start). A placement is one fault started at one step plus an
  offset (--offsets, ms after it); "(placement 35)"
  numbers the one that broke the lock. The hold is how long a client
  works while it holds the lock (the workload's own, and just under the
  lease); "hold 5 s or 58.8 s" means every placement ran with each.

lock keys
  The unique-name workload locks the key trava_nome_<name> ("name lock",
  as in the Portuguese application it reproduces) before inserting
  <name>; the stock workload works on goods:001.
`, strings.Join(wrap(strings.Join(damage, ", ")+".", 68), "\n  "), strings.Join(wrap(checker.StaleWriteGloss, 68), "\n  "),
		states.String(), trace.FaultSyntax, strings.Join(wrap(strings.Join(trace.KindNames(), ", ")+".", 70), "\n  "))
}
