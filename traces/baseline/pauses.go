package baseline

import (
	"sort"
	"time"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// window is one GC pause of a client process, in time since the trial
// started: [from, to).
type window struct{ from, to time.Duration }

// pauses is a process's GC pauses in order, not overlapping.
type pauses []window

// pausesOf returns the gc-pause faults of sc aimed at client, as the sim
// applies them: a pause that starts while the process is already paused
// is ignored (sim.Process.Pause returns early), so the windows never
// overlap.
func pausesOf(sc protocols.Scenario, client string) pauses {
	var fs []trace.Fault
	for _, f := range sc.Faults {
		if f.Kind == trace.FaultGCPause && f.Target == client && f.DurMs > 0 {
			fs = append(fs, f)
		}
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].AtMs < fs[j].AtMs })
	var out pauses
	for _, f := range fs {
		if len(out) > 0 && f.At() < out[len(out)-1].to {
			continue
		}
		out = append(out, window{from: f.At(), to: f.At() + f.Dur()})
	}
	return out
}

// covering returns the end of the pause under way at now, if any.
func (ps pauses) covering(now time.Duration) (time.Duration, bool) {
	i := sort.Search(len(ps), func(i int) bool { return ps[i].to > now })
	if i < len(ps) && ps[i].from <= now {
		return ps[i].to, true
	}
	return 0, false
}
