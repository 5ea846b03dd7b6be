package main

import (
	"fmt"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/traces"
)

const defaultReferenceName = traces.DefaultReference

const inputLimitNote = "Input files are capped at 256 MB, trace files also at one line per 64 bytes of that (4,194,304 lines); --max-input-mb raises both."

// registerMaxInput defines --max-input-mb, the cap on input file sizes.
func registerMaxInput(fs *flagSet) *int64 {
	return fs.Int64("max-input-mb", traces.DefaultMaxInput>>20, "refuse input files larger than `MB` megabytes (1 to 65536)")
}

// maxInputMB is the largest --max-input-mb.
const maxInputMB = 65536

func maxInputBytes(mb int64) (int64, error) {
	if mb < 1 || mb > maxInputMB {
		return 0, fmt.Errorf("--max-input-mb must be between 1 and 65536")
	}
	return mb << 20, nil
}

// checkOutputs refuses, before any work, an output path that is one of
// the inputs or another output (writing it would destroy what was read
// or written), or that cannot be written (traces.CheckOutput): a long
// run must not end in an error that loses its verdict.
func checkOutputs(inputs []string, outputs ...string) error {
	for i, o := range outputs {
		if o == "" {
			continue
		}
		if err := traces.CheckOutput(o); err != nil {
			return err
		}
		for _, in := range inputs {
			if traces.SameFile(o, in) {
				return fmt.Errorf("output %s is also an input: refusing to overwrite it", o)
			}
		}
		for _, o2 := range outputs[i+1:] {
			if o2 != "" && traces.SameFile(o, o2) {
				return fmt.Errorf("two outputs name the same file %s", o)
			}
		}
	}
	return nil
}

// defaultReplayEvents is replay's budget unless --max-events raises it:
// the largest budget a run gets by default (protocols.ScaledEventBudgetCap),
// so every trace a run wrote with its default budget replays without it.
const defaultReplayEvents = protocols.ScaledEventBudgetCap

// registerReplayBudget defines replay's --max-events.
func registerReplayBudget(fs *flagSet) *int64 {
	return fs.Int64("max-events", defaultReplayEvents, fmt.Sprintf(
		"refuse, without running it, a scenario whose size (clients x threads x ops at its protocol's cost per operation) needs more than `N` simulator events (1 to %d)", protocols.MaxEventBudget))
}

// checkReplayBudget checks the --max-events value.
func checkReplayBudget(budget int64) error {
	if budget < 1 || budget > protocols.MaxEventBudget {
		return fmt.Errorf("--max-events must be between 1 and %d", protocols.MaxEventBudget)
	}
	return nil
}

// checkReplayCost refuses a scenario that its size says needs more than
// budget events: a trace can name any scenario, and no command that runs
// a trace's scenario (replay, shrink, run --scenario TRACE) may be led
// into minutes of work and gigabytes of memory by one. cmd names the
// command; run, which has no --max-events beside --scenario, points to
// replay's.
func checkReplayCost(sc protocols.Scenario, budget int64, cmd, path string) error {
	need := sc.EstimatedEvents()
	if need <= budget {
		return nil
	}
	size := fmt.Sprintf("%s: the trace's scenario (%d clients x %d threads x %d ops of %s) needs about %d simulator events, over %s's budget of %d: not run",
		path, sc.Clients, sc.Threads, sc.Ops, sc.Protocol, need, cmd, budget)
	switch {
	case need > protocols.MaxEventBudget:
		return fmt.Errorf("%s (more than --max-events can allow, %d)", size, protocols.MaxEventBudget)
	case cmd == "run":
		return fmt.Errorf("%s (if you trust the trace: locksim replay %s --max-events %d)", size, path, need)
	}
	return fmt.Errorf("%s (raise it with --max-events %d if you trust the trace)", size, need)
}
