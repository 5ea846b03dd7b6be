package protocols

import (
	"fmt"
	"math"
	"sort"

	"github.com/locksim/locksim/sim"
)

// FaultKinds lists the fault kinds the generator knows, in CLI order.
var FaultKinds = []string{sim.FaultGCPause}

// GenerateFaults draws an explicit, timed fault schedule from the
// scenario's seed, its fault kinds and intensity. Each kind draws from its
// own stream, so adding a kind does not move the others.
func GenerateFaults(sc Scenario) ([]sim.Fault, error) {
	intensity := sc.Intensity
	if intensity <= 0 {
		intensity = 1
	}
	window := sc.activeWindow().Milliseconds()
	lease := sc.LeaseMs
	var out []sim.Fault
	for _, kind := range sc.FaultKinds {
		r := sim.NewStreams(sc.Seed).Get("faults/" + kind)
		switch kind {
		case "none":
		case sim.FaultGCPause:
			// Half the pauses are ordinary (10 ms to 1 s); half are at the
			// scale of the lease, the only ones that can outlast it.
			for c := 0; c < sc.Clients; c++ {
				n := int(math.Round(intensity * float64(1+r.IntN(2))))
				for range n {
					var dur int64
					if r.IntN(2) == 0 {
						dur = 10 + r.Int64N(990)
					} else {
						dur = lease/2 + r.Int64N(lease*3/2+1)
					}
					out = append(out, sim.Fault{Kind: kind, Target: ClientName(c), AtMs: r.Int64N(window), DurMs: dur})
				}
			}
		default:
			return nil, fmt.Errorf("unknown fault kind %q (known: none, %v)", kind, FaultKinds)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].AtMs < out[j].AtMs })
	return out, nil
}
