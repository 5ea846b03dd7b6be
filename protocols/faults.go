package protocols

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// A generator draws the faults of one kind for a scenario. One per kind
// of trace.Kinds (a test checks it).
type generator func(g *gen) []trace.Fault

var generators = map[string]generator{
	trace.FaultGCPause:        genPause,
	trace.FaultSlowWork:       genSlowWork,
	trace.FaultWatchdogStall:  genStall,
	trace.FaultPartition:      genPartition,
	trace.FaultBlackhole:      genBlackhole,
	trace.FaultReplicationLag: genReplicationLag,
	trace.FaultFailover:       genFailover,
	trace.FaultClockJump:      genClockJump,
	trace.FaultClockDrift:     genClockDrift,
	trace.FaultClientCrash:    genClientCrash,
	trace.FaultNodeRestart:    genNodeRestart,
	trace.FaultReplyLoss:      genReplyLoss,
	trace.FaultDelay:          genDelay,
	trace.FaultInterrupt:      genInterrupt,
}

// checkFaultKind refuses a fault kind the generator cannot draw.
func checkFaultKind(kind string) error {
	if kind != "none" && generators[kind] == nil {
		return fmt.Errorf("unknown fault kind %q (known: none, %s)", kind, strings.Join(trace.KindNames(), ", "))
	}
	return nil
}

// Generates reports whether the generator draws faults of kind.
func Generates(kind string) bool { return generators[kind] != nil }

// GenerateFaults draws an explicit fault schedule from the scenario's
// seed, its fault kinds and intensity. Each kind draws from its own
// stream, so adding a kind does not move the others. Durations are drawn
// at the scale of the lease (shorter faults cannot break a lease), and a
// share of the faults (AnchorPct) is anchored to a client's operation
// instead of a random time, so that it lands while a lock is held.
func GenerateFaults(sc Scenario) ([]trace.Fault, error) {
	g := &gen{sc: sc, window: sc.activeWindow().Milliseconds(), lease: sc.LeaseMs, work: sc.WorkMs,
		intensity: sc.Intensity}
	if g.intensity <= 0 {
		g.intensity = 1
	}
	var out []trace.Fault
	for _, kind := range sc.FaultKinds {
		if kind == "none" {
			continue
		}
		if err := checkFaultKind(kind); err != nil {
			return nil, err
		}
		draw := generators[kind]
		g.r = sim.NewStreams(sc.Seed).Get("faults/" + kind)
		out = append(out, draw(g)...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].AtMs < out[j].AtMs })
	return out, nil
}

type gen struct {
	sc        Scenario
	r         *rand.Rand
	window    int64
	lease     int64
	work      int64
	intensity float64
}

// n scales a count by the intensity.
func (g *gen) n(base int) int { return max(1, int(math.Round(g.intensity*float64(base)))) }

func (g *gen) fault(kind, target string, dur, value int64) trace.Fault {
	return trace.Fault{Kind: kind, Target: target, AtMs: g.r.Int64N(g.window), DurMs: dur, Value: value}
}

// span draws between lease*lo/div and lease*hi: span(1, 2, 2) is lease/2
// to 2*lease.
func (g *gen) span(lo, hi, div int64) int64 {
	a := g.lease * lo / div
	b := g.lease * hi
	return a + g.r.Int64N(b-a+1)
}

func (g *gen) client() string { return g.sc.Client(g.r.IntN(g.sc.Clients)) }

// anchored draws whether the next fault is anchored to an operation.
func (g *gen) anchored() bool { return g.r.IntN(100) < cmp.Or(g.sc.AnchorPct, DefaultAnchorPct) }

// nth draws which occurrence of an operation an anchor waits for: the
// first half the time, else any of the thread's operations.
func (g *gen) nth() int {
	if g.r.IntN(2) == 0 {
		return 1
	}
	return 1 + g.r.IntN(g.sc.Ops)
}

// acquired anchors f right after client's nth successful acquire, or
// within its work.
func (g *gen) acquired(f trace.Fault, client string) trace.Fault {
	after := int64(0)
	if g.r.IntN(2) == 0 && g.work > 0 {
		after = g.r.Int64N(g.work)
	}
	f.AtMs = 0
	f.Anchor = &trace.Anchor{Party: client, Op: model.OpAcquire, Phase: trace.PhaseReturn, Result: model.ResOK,
		Nth: g.nth(), AfterMs: after}
	return f
}

// place anchors f after client's acquire when the anchor share says so.
func (g *gen) place(f trace.Fault, client string) trace.Fault {
	if g.anchored() {
		return g.acquired(f, client)
	}
	return f
}

// invoked anchors f when client invokes its nth operation op.
func (g *gen) invoked(f trace.Fault, client, op string) trace.Fault {
	f.AtMs = 0
	f.Anchor = &trace.Anchor{Party: client, Op: op, Phase: trace.PhaseInvoke, Nth: g.nth()}
	return f
}

// node picks a node faults may hit; master prefers the current master.
func (g *gen) node(master bool) string {
	nodes := LockNodes(g.sc)
	if g.sc.Topology == TopoReplicated && master {
		return sim.Master
	}
	if g.sc.Topology == TopoReplicated {
		return nodes[0]
	}
	return nodes[g.r.IntN(len(nodes))]
}
