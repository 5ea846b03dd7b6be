package main

import (
	"fmt"

	"github.com/locksim/locksim/traces"
)

const defaultReferenceName = traces.DefaultReference

const inputLimitNote = "Input files are capped at 256 MB (--max-input-mb raises it)."

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

// checkOutputs refuses an output path that is one of the inputs or
// another output: writing it would destroy what was read or written.
func checkOutputs(inputs []string, outputs ...string) error {
	for i, o := range outputs {
		if o == "" {
			continue
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
