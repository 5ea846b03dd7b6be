package checker

import (
	"math"
	"sort"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// hold is one interval during which a client believed it held a lock:
// from its acquire's return to its release's call (or the end of time).
type hold struct {
	Key     string
	Client  string
	Process string
	Acquire sim.Op
	Start   int64
	End     int64 // math.MaxInt64 if never released
}

// holds lists every hold in the trace, by start time.
func holds(tr *sim.Trace) []hold {
	open := map[[2]string]int{} // (client, key) -> index in out
	var out []hold
	for _, op := range tr.Ops {
		k := [2]string{op.Client, op.Key}
		switch op.Kind {
		case model.OpAcquire:
			if op.Result == model.ResOK && !op.Open() {
				open[k] = len(out)
				out = append(out, hold{Key: op.Key, Client: op.Client, Process: op.Process, Acquire: op,
					Start: op.Return, End: math.MaxInt64})
			}
		case model.OpRelease:
			if i, ok := open[k]; ok {
				out[i].End = op.Call
				delete(open, k)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// overlap is a pair of holds on one key by different clients: Second
// started while First was still held.
type overlap struct {
	First, Second hold
}

// overlaps finds, for each hold, the earliest other hold it ran into.
func overlaps(hs []hold) []overlap {
	var out []overlap
	for i, a := range hs {
		for _, b := range hs[i+1:] {
			if b.Key != a.Key || b.Client == a.Client {
				continue
			}
			if b.Start > a.Start && b.Start < a.End {
				out = append(out, overlap{First: a, Second: b})
				break
			}
		}
	}
	return out
}
