package locktest

import (
	"slices"
	"sort"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// After rapid has shrunk a failure, Check polishes it with moves rapid
// cannot make in one step because they change several draws at once:
// drop a fault event, drop the last client, aim a fault at an earlier
// client (a pause that made c2 take the lock first, plus a pause of c2,
// becomes one pause of c1), return a setting to its simplest value, and
// lower each fault's start, duration and amount on the generator's grid.
// Each move is kept when the scenario still fails the same way (same
// property, same cause). The result stays inside the generator's space.

// polishRuns bounds the runs of the polish.
const polishRuns = 600

// noiseSeeds is how many noise seeds a structural move is tried with.
const noiseSeeds = 8

// event is one fault event as the generator draws it: a failover carries
// the slow replication that precedes it.
type event struct {
	f   trace.Fault
	lag int64 // failover: the replication lag before the crash; 0: none
}

// eventsOf groups a schedule into events.
func eventsOf(fs []trace.Fault) []event {
	used := make([]bool, len(fs))
	var out []event
	for i, f := range fs {
		if f.Kind != trace.FaultFailover {
			continue
		}
		ev := event{f: f}
		for j, l := range fs {
			if !used[j] && l.Kind == trace.FaultReplicationLag && l.Target == f.Target && l.Value > 0 &&
				l.AtMs == max(0, f.AtMs-l.Value) && l.AtMs+l.DurMs == f.AtMs+f.DurMs {
				ev.lag, used[j] = l.Value, true
				break
			}
		}
		used[i] = true
		out = append(out, ev)
	}
	for i, f := range fs {
		if !used[i] {
			out = append(out, event{f: f})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].f.AtMs < out[j].f.AtMs })
	return out
}

// faults is the schedule of evs, ordered by start.
func (evs events) faults() []trace.Fault {
	out := []trace.Fault{}
	for _, ev := range evs {
		if ev.f.Kind == trace.FaultFailover && ev.lag > 0 {
			from := max(0, ev.f.AtMs-ev.lag)
			out = append(out, trace.Fault{Kind: trace.FaultReplicationLag, Target: ev.f.Target, AtMs: from,
				DurMs: ev.f.AtMs - from + ev.f.DurMs, Value: ev.lag})
		}
		out = append(out, ev.f)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].AtMs < out[j].AtMs })
	return out
}

type events []event

// ends splits a fault target into its parties (trace.ParseTarget).
func ends(target string) []string {
	t, err := trace.ParseTarget(target)
	if err != nil {
		return []string{target}
	}
	return t.Parties
}

// retarget replaces party from by to in target, or returns false.
func retarget(target, from, to string) (string, bool) {
	t, err := trace.ParseTarget(target)
	if err != nil {
		return "", false
	}
	r, hit := t.Rename(from, to)
	return r.String(), hit
}

// polisher runs the polish of one failing case.
type polisher struct {
	c    *config
	want string
	best *Result
	runs int
	// moved records that a structural move was kept this round.
	moved bool
}

// try runs sc and keeps it when it fails the same way.
func (p *polisher) try(sc protocols.Scenario) bool {
	if p.runs >= polishRuns {
		return false
	}
	p.runs++
	res, err := p.c.evaluate(sc, p.want)
	if err != nil || res.Failure == nil {
		return false
	}
	p.best = res
	return true
}

// with returns the best scenario with its events replaced.
func (p *polisher) with(evs events) protocols.Scenario {
	sc := p.best.Scenario
	sc.Faults = evs.faults()
	return sc
}

// resized returns sc with new sizes; the stock follows them when it was
// the default.
func resized(sc protocols.Scenario, clients, threads, ops int) protocols.Scenario {
	if sc.Workload == "stock" && sc.Stock == sc.Clients*sc.Threads*sc.Ops {
		sc.Stock = 0
	}
	sc.Clients, sc.Threads, sc.Ops = clients, threads, ops
	return sc
}

// polish returns the smallest failing case it finds from res.
func (c *config) polish(res *Result, want string) (*Result, int) {
	p := &polisher{c: c, want: want, best: res}
	for round := 0; round < 4 && p.runs < polishRuns; round++ {
		before := p.runs
		changed := p.structure() || p.settings()
		changed = p.numbers() || changed
		if !changed || p.runs == before {
			break
		}
	}
	return p.best, p.runs
}

// structure drops events, clients, threads and operations, and aims
// faults at earlier clients. Each move is also tried together with the
// simplest start order and seed, since a fault often only mattered
// because of who went first.
func (p *polisher) structure() bool {
	p.moved = false
	p.isolate()
	p.dropEvents()
	p.mergeEvents()
	p.dropClients()
	p.fewerOps()
	p.aimEarlier()
	return p.moved
}

// perturbed tries sc as is, then with the simplest start order (c1
// first) and retry interval under a few noise seeds, then under each
// start spacing: a structural move is worth a perturbation of the noise.
func (p *polisher) perturbed(sc protocols.Scenario) bool {
	if p.try(sc) {
		p.moved = true
		return true
	}
	for seed := range uint64(noiseSeeds) {
		x := sc
		x.StaggerMs, x.RetryMs, x.Seed = staggers[0], retries[0], seed
		if !sameScenario(x, sc) && p.try(x) {
			p.moved = true
			return true
		}
	}
	// Then the other start spacings: with a client gone, the next
	// one may need to start later (after a failover) or sooner.
	for _, st := range staggers[1:] {
		x := sc
		x.StaggerMs = st
		if !sameScenario(x, sc) && p.try(x) {
			p.moved = true
			return true
		}
	}
	return false
}

// earlier lists evs with event i aimed at an earlier client, each way.
func (p *polisher) earlier(evs events, i int) []events {
	var out []events
	for k := p.best.Scenario.Clients - 1; k >= 1; k-- {
		for j := range k {
			if t, ok := retarget(evs[i].f.Target, protocols.ClientName(k), protocols.ClientName(j)); ok {
				next := slices.Clone(evs)
				next[i].f.Target = t
				out = append(out, next)
			}
		}
	}
	return out
}

// isolate keeps one event alone, with one operation per thread, started
// early (while the first client holds the lock) if not at its own time:
// several events and operations often only served to line up one fault
// with one critical section.
func (p *polisher) isolate() {
	sc := p.best.Scenario
	if len(eventsOf(sc.Faults)) <= 1 && sc.Ops <= 1 && sc.Threads <= 1 {
		return
	}
	base := resized(sc, sc.Clients, 1, 1)
	base.StaggerMs, base.RetryMs = staggers[0], retries[0]
	for _, ev := range p.isolated(sc) {
		for k := int64(-1); k <= 10; k++ {
			one := ev
			if k >= 0 {
				if one.f.AtMs == 100*k {
					continue
				}
				one.f.AtMs = 100 * k
			}
			for seed := range uint64(noiseSeeds / 2) {
				x := base
				x.Seed = seed
				x.Faults = events{one}.faults()
				if p.try(x) {
					p.moved = true
					return
				}
			}
		}
	}
}

// isolated lists the events isolate tries alone: each event as it is,
// and aimed at an earlier client (with c1 going first, a pause of c2
// only mattered because of who held).
func (p *polisher) isolated(sc protocols.Scenario) []event {
	var out []event
	for _, ev := range eventsOf(sc.Faults) {
		out = append(out, ev)
		for k := sc.Clients - 1; k >= 1; k-- {
			for j := range k {
				if t, ok := retarget(ev.f.Target, protocols.ClientName(k), protocols.ClientName(j)); ok {
					moved := ev
					moved.f.Target = t
					out = append(out, moved)
				}
			}
		}
	}
	return out
}

// dropEvents drops an event; or drops it and aims another one at an
// earlier client.
func (p *polisher) dropEvents() {
	for i := 0; i < len(eventsOf(p.best.Scenario.Faults)); i++ {
		evs := eventsOf(p.best.Scenario.Faults)
		rest := events(slices.Delete(slices.Clone(evs), i, i+1))
		if p.perturbed(p.with(rest)) {
			i--
			continue
		}
		for j := range rest {
			if slices.ContainsFunc(p.earlier(rest, j), func(e events) bool { return p.perturbed(p.with(e)) }) {
				i = -1
				break
			}
		}
	}
}

// mergeEvents merges two events of one kind on one target: amounts split
// over several events (three slow-work faults whose extra times add up)
// become one.
func (p *polisher) mergeEvents() {
	for i := 0; i < len(eventsOf(p.best.Scenario.Faults)); i++ {
		evs := eventsOf(p.best.Scenario.Faults)
		for j := i + 1; j < len(evs); j++ {
			m, ok := merged(evs[i], evs[j], max(1, p.best.Scenario.LeaseMs/8))
			if !ok {
				continue
			}
			next := slices.Clone(evs)
			next[i] = m
			if p.perturbed(p.with(slices.Delete(next, j, j+1))) {
				i = -1
				break
			}
		}
	}
}

// dropClients drops the last client, with its faults or moving them to
// another, while that still fails.
func (p *polisher) dropClients() {
	for p.best.Scenario.Clients > 1 {
		if !slices.ContainsFunc(p.withoutLastClient(), p.perturbed) {
			return
		}
	}
}

// withoutLastClient lists the best scenario without its last client: its
// faults dropped, then each moved to another client, as they are and a
// quarter of a lease longer (the new holder may take the lock later).
func (p *polisher) withoutLastClient() []protocols.Scenario {
	sc := p.best.Scenario
	last := protocols.ClientName(sc.Clients - 1)
	sc = resized(sc, sc.Clients-1, sc.Threads, sc.Ops)
	drop := sc
	drop.Faults = slices.DeleteFunc(slices.Clone(sc.Faults), func(f trace.Fault) bool { return slices.Contains(ends(f.Target), last) })
	cands := []protocols.Scenario{drop}
	for j := range sc.Clients {
		for _, longer := range []int64{0, 2 * max(1, sc.LeaseMs/8)} {
			move := sc
			move.Faults = slices.Clone(sc.Faults)
			ok := true
			for k, f := range move.Faults {
				if t, hit := retarget(f.Target, last, protocols.ClientName(j)); hit {
					if e := ends(t); len(e) == 2 && e[0] == e[1] {
						ok = false // a link from a party to itself
					}
					move.Faults[k].Target = t
					if move.Faults[k].DurMs > 0 {
						move.Faults[k].DurMs += longer
					}
				}
			}
			if ok && !sameScenario(move, drop) {
				cands = append(cands, move)
			}
		}
	}
	return cands
}

// fewerOps tries one thread, one operation, and one operation fewer.
func (p *polisher) fewerOps() {
	for _, f := range []func(sc protocols.Scenario) protocols.Scenario{
		func(sc protocols.Scenario) protocols.Scenario { return resized(sc, sc.Clients, 1, sc.Ops) },
		func(sc protocols.Scenario) protocols.Scenario { return resized(sc, sc.Clients, sc.Threads, 1) },
		func(sc protocols.Scenario) protocols.Scenario {
			return resized(sc, sc.Clients, sc.Threads, max(1, sc.Ops-1))
		},
	} {
		if sc := f(p.best.Scenario); scaleLess(sc, p.best.Scenario) {
			p.perturbed(sc)
		}
	}
}

// aimEarlier aims each event at an earlier client.
func (p *polisher) aimEarlier() {
	for i := range eventsOf(p.best.Scenario.Faults) {
		for _, e := range p.earlier(eventsOf(p.best.Scenario.Faults), i) {
			if p.perturbed(p.with(e)) {
				break
			}
		}
	}
}

// merged is one event doing the work of a and b, of one kind on one
// target: amounts add up, and the time covered spans both.
func merged(a, b event, eighth int64) (event, bool) {
	if a.f.Kind != b.f.Kind || a.f.Target != b.f.Target {
		return event{}, false
	}
	at := min(a.f.AtMs, b.f.AtMs)
	end := max(a.f.AtMs+a.f.DurMs, b.f.AtMs+b.f.DurMs)
	cover := max(end-at, a.f.DurMs+b.f.DurMs)
	cover = (cover + eighth - 1) / eighth * eighth
	m := a
	m.f.AtMs = at
	switch a.f.Kind {
	case trace.FaultSlowWork, trace.FaultReplicationLag, FaultDelay:
		m.f.DurMs, m.f.Value = cover, a.f.Value+b.f.Value
	case trace.FaultGCPause, trace.FaultWatchdogStall, trace.FaultPartition, trace.FaultReplyLoss, trace.FaultNodeRestart, trace.FaultBlackhole:
		m.f.DurMs = cover
	case trace.FaultClockJump:
		if (a.f.Value < 0) != (b.f.Value < 0) {
			return event{}, false
		}
		m.f.Value = a.f.Value + b.f.Value
	default:
		return event{}, false
	}
	return m, true
}

func scaleLess(a, b protocols.Scenario) bool {
	return a.Clients+a.Threads+a.Ops < b.Clients+b.Threads+b.Ops
}

// settings returns the topology, lease, sentinel, start and retry
// settings and the seed to their simplest values.
func (p *polisher) settings() bool {
	changed := false
	for _, f := range []func(sc *protocols.Scenario){
		func(sc *protocols.Scenario) { sc.Seed = 0 },
		func(sc *protocols.Scenario) { sc.StaggerMs = staggers[0] },
		func(sc *protocols.Scenario) { sc.RetryMs = retries[0] },
		func(sc *protocols.Scenario) { sc.LeaseMs = p.c.leases[0] },
		func(sc *protocols.Scenario) {
			if sc.Topology == protocols.TopoReplicated {
				sc.Nodes, sc.DownAfterMs = 1, 1000
			}
		},
		func(sc *protocols.Scenario) {
			// The preferred topology: faults aimed at nodes it lacks make
			// the run fail to build, and the move is not kept.
			if sc.Topology != p.c.topos[0] {
				sc.Topology, sc.Nodes, sc.DownAfterMs, sc.DiscoveryMs, sc.ReplLagMs = p.c.topos[0], 0, 0, 0, [2]int64{}
				if sc.Topology == protocols.TopoReplicated {
					sc.Nodes, sc.DownAfterMs = 1, 1000
				}
			}
		},
	} {
		sc := p.best.Scenario
		f(&sc)
		if !sameScenario(sc, p.best.Scenario) && p.try(sc) {
			changed = true
		}
	}
	return changed
}

// numbers lowers each event's start, duration and amount on the grid.
func (p *polisher) numbers() bool {
	changed := false
	eighth := max(1, p.best.Scenario.LeaseMs/8)
	down := max(p.best.Scenario.DownAfterMs, 1000)
	for i := range eventsOf(p.best.Scenario.Faults) {
		type knob struct {
			get       func(ev event) int64
			set       func(ev *event, v int64)
			min, step int64
		}
		dur := knob{func(ev event) int64 { return ev.f.DurMs }, func(ev *event, v int64) { ev.f.DurMs = v }, eighth, eighth}
		value := knob{func(ev event) int64 { return abs(ev.f.Value) }, func(ev *event, v int64) {
			if ev.f.Value < 0 {
				v = -v
			}
			ev.f.Value = v
		}, eighth, eighth}
		knobs := []knob{{func(ev event) int64 { return ev.f.AtMs }, func(ev *event, v int64) { ev.f.AtMs = v }, 0, 100}}
		// The table's shrink rule says which numbers may go down; a few
		// kinds have their own floor and grid.
		kind := eventsOf(p.best.Scenario.Faults)[i].f.Kind
		switch kind {
		case trace.FaultClientCrash:
			dur.min = 0
		case trace.FaultClockDrift:
			value.min, value.step = 5000, 5000
		case trace.FaultFailover:
			dur.min, dur.step = 2*down, down/2
		}
		spec, _ := trace.LookupKind(kind)
		if spec.Shrink&trace.ShrinkDur != 0 {
			knobs = append(knobs, dur)
		}
		if spec.Shrink&trace.ShrinkValue != 0 {
			knobs = append(knobs, value)
		}
		if kind == trace.FaultFailover {
			knobs = append(knobs, knob{func(ev event) int64 { return ev.lag }, func(ev *event, v int64) { ev.lag = v }, 0, eighth})
		}
		for _, k := range knobs {
			set := func(v int64) bool {
				evs := slices.Clone(eventsOf(p.best.Scenario.Faults))
				if i >= len(evs) {
					return false
				}
				k.set(&evs[i], v)
				return p.try(p.with(evs))
			}
			cur := k.get(eventsOf(p.best.Scenario.Faults)[i])
			if lowest(cur, k.min, k.step, set) < cur {
				changed = true
			}
		}
	}
	return changed
}

// lowest finds a low value in [min, cur] on the grid for which ok holds,
// by bisection (it assumes ok holds at cur): the minimum first, then
// halving the gap.
func lowest(cur, min, step int64, ok func(int64) bool) int64 {
	if cur <= min || (cur-min)%step != 0 {
		return cur
	}
	if ok(min) {
		return min
	}
	lo, hi := min, cur // ok(lo) is false, ok(hi) is true
	for hi-lo > step {
		mid := lo + (hi-lo)/step/2*step
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi // the last value ok held for: the polisher's best
}
