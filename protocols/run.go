package protocols

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/sim"
)

// MasterNode is the Redis node of the single topology.
const MasterNode = "redis"

// Run normalizes sc, builds its world and runs it.
func Run(sc Scenario) (Scenario, *sim.Trace, error) {
	sc, err := sc.Normalize()
	if err != nil {
		return sc, nil, err
	}
	p, _ := Lookup(sc.Protocol)
	wl, _ := LookupWorkload(sc.Workload)
	w := sim.New(sim.Config{
		Seed:           sc.Seed,
		Horizon:        time.Duration(sc.HorizonMs) * time.Millisecond,
		Network:        sc.Network,
		CommandTimeout: time.Duration(sc.TimeoutMs) * time.Millisecond,
	})
	w.AddNode(MasterNode)
	w.SetMaster(MasterNode)
	wl.Setup(w, sc)
	r := &Runner{Sc: sc, Proto: p, Env: Env{Master: sim.Master, Nodes: []string{MasterNode},
		Lease: time.Duration(sc.LeaseMs) * time.Millisecond}}
	for c := 0; c < sc.Clients; c++ {
		proc := w.AddProcess(ClientName(c))
		proc.Client = p.Client
		for th := 0; th < sc.Threads; th++ {
			late := time.Duration(int64(c)*sc.StaggerMs) * time.Millisecond
			proc.Go(fmt.Sprintf("t%d", th+1), func(t *sim.Thread) {
				if late > 0 {
					t.Sleep(late)
				}
				wl.Thread(t, r)
			})
		}
	}
	for _, f := range sc.Faults {
		if err := w.Inject(f); err != nil {
			return sc, nil, err
		}
	}
	tr, err := w.Run()
	return sc, tr, err
}
