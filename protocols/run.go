package protocols

import (
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// Run normalizes sc, builds its world and runs it.
func Run(sc Scenario) (Scenario, *trace.Trace, error) { return RunPooled(sc, nil) }

// RunPooled is Run with the world's Redis stores and coroutines taken
// from pool and given back to it (nil: made for this run alone).
func RunPooled(sc Scenario, pool *sim.Pool) (Scenario, *trace.Trace, error) {
	sc, err := sc.Normalize()
	if err != nil {
		return sc, nil, err
	}
	p, _ := sc.LookupProtocol()
	wl, _ := LookupWorkload(sc.Workload)
	w := sim.New(sim.Config{
		Seed:           sc.Seed,
		Horizon:        time.Duration(sc.HorizonMs) * time.Millisecond,
		Network:        sc.Network,
		CommandTimeout: time.Duration(sc.TimeoutMs) * time.Millisecond,
		MaxEvents:      sc.EventBudget(),
		Pool:           pool,
		Scripts:        p.Scripts,
	})
	env := build(w, sc, wl)
	r := &Runner{Sc: sc, Proto: p, Env: env}
	if p.Attach != nil {
		if err := p.Attach(w, sc); err != nil {
			return sc, nil, err
		}
	}
	for c := 0; c < sc.Clients; c++ {
		proc := w.AddProcess(sc.Client(c))
		proc.Client = p.Client
		late := time.Duration(int64(c)*sc.StaggerMs) * time.Millisecond
		proc.SetBoot(func(proc *sim.Process) {
			for th := 0; th < sc.Threads; th++ {
				proc.Go(numbered(&threadNames, "t", th), func(t *sim.Thread) {
					if late > 0 && !proc.Restarted() {
						t.Sleep(late)
					}
					wl.Thread(t, r)
				})
			}
		})
		proc.Boot()
	}
	for _, f := range sc.Faults {
		if err := w.Inject(f); err != nil {
			w.Discard()
			return sc, nil, err
		}
	}
	tr, err := w.Run()
	w.Release()
	if err != nil && sc.ProtocolFile != nil {
		err = sc.ProtocolFile.unfinished(err)
	}
	return sc, tr, err
}
