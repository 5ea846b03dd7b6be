package explore

import (
	"bufio"
	"bytes"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/luafast"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

// defaultExplore is the default explore scenario: redisson, gc-pause,
// 5 clients, unique-name.
func defaultExplore(seed uint64) protocols.Scenario {
	return protocols.Scenario{Seed: seed, Protocol: "redisson", Workload: "unique-name", Clients: 5,
		FaultKinds: []string{"gc-pause"}}
}

// floorSeeds is how many seeds the stage benchmarks cycle through, so that
// each measures the same mix of runs.
const floorSeeds = 64

// recordedCommand is one command a node ran in a recorded run.
type recordedCommand struct {
	at     time.Duration
	client string
	args   []string
	reply  string
}

// recordedCommands lists the commands the nodes of tr ran that reach
// miniredis or the script engine (SUBSCRIBE is the sim's own), with
// script bodies restored from the trace's script table.
func recordedCommands(tr *trace.Trace) []recordedCommand {
	var out []recordedCommand
	for _, e := range tr.Events {
		if e.Kind != trace.EvCommand || len(e.Args) == 0 || e.Args[0] == "SUBSCRIBE" {
			continue
		}
		args := append([]string(nil), e.Args...)
		if len(args) > 1 && strings.HasPrefix(args[1], "sha1:") && strings.HasPrefix(strings.ToUpper(args[0]), "EVAL") {
			args[1] = tr.Scripts[strings.TrimPrefix(args[1], "sha1:")]
		}
		out = append(out, recordedCommand{at: time.Duration(e.T), client: e.Client, args: args, reply: e.Reply})
	}
	return out
}

// runs records the default scenario over floorSeeds seeds.
func runs(b *testing.B) ([]protocols.Scenario, []*trace.Trace) {
	var scs []protocols.Scenario
	var trs []*trace.Trace
	for s := uint64(1); s <= floorSeeds; s++ {
		sc, tr, err := protocols.Run(defaultExplore(s))
		if err != nil {
			b.Fatal(err)
		}
		scs, trs = append(scs, sc), append(trs, tr)
	}
	return scs, trs
}

// bareNode is miniredis with the sim's script engine and nothing else:
// no clock, no trace, no key-change detection.
type bareNode struct {
	m     *miniredis.Miniredis
	srv   *server.Server
	out   bytes.Buffer
	peers map[string]*server.Peer
	eng   *luafast.Engine
	last  time.Duration
}

func newBareNode() *bareNode {
	m := miniredis.NewMiniRedis()
	c, err := m.Dial()
	if err != nil {
		panic(err)
	}
	c.Close()
	n := &bareNode{m: m, srv: m.Server(), peers: map[string]*server.Peer{}, eng: luafast.New(m, &floorCache)}
	n.eng.SetPreHook(func(c *server.Peer, cmd string, args ...string) bool { return n.eng.Handle(c, cmd, args) })
	m.SetTime(epoch)
	return n
}

// epoch is the node clocks' reading at virtual time 0 (as in sim).
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// do runs args at virtual time at: TTLs count down first, as on a node.
func (n *bareNode) do(at time.Duration, client string, args []string) {
	if at > n.last {
		n.m.FastForward(at - n.last)
		n.m.SetTime(epoch.Add(at))
		n.last = at
	}
	p := n.peers[client]
	if p == nil {
		p = server.NewPeer(bufio.NewWriter(&n.out))
		n.peers[client] = p
	}
	n.out.Reset()
	n.srv.Dispatch(p, args)
	p.Flush()
}

// BenchmarkStages measures the default explore run whole and stage by
// stage. Each iteration is one run (floorSeeds seeds in turn), so the
// stages compare with "whole":
//
//   - whole: run and check (traces.Evaluate), as explore does
//   - setup: the scenario normalized and its faults drawn
//   - sim: the run in the simulator (protocols.Run: setup, nodes,
//     scheduling, network, commands, recording)
//   - check: the checker on the recorded trace
//   - node: one node created and released (miniredis, script engine)
//   - floor-node: the run's recorded commands replayed on a fresh sim
//     node (clock, key-change detection and recording included), node
//     creation not timed
//   - floor-bare: the same commands on bare miniredis plus the script
//     engine (its twins' direct commands on), node creation not timed:
//     the work no simulator avoids
//
// Besides ns/op each reports cpu-ns/op, the process's CPU time per run,
// which a loaded machine inflates far less than wall time.
func BenchmarkStages(b *testing.B) {
	scs, trs := runs(b)
	cmds := make([][]recordedCommand, len(trs))
	for i, tr := range trs {
		cmds[i] = recordedCommands(tr)
	}
	if bad := replayMismatches(cmds); bad > 0 {
		b.Fatalf("replay: %d replies differ from the recorded runs", bad)
	}
	b.Run("whole", stage(func(i int) error {
		_, err := traces.Evaluate(defaultExplore(uint64(i%floorSeeds) + 1))
		return err
	}))
	b.Run("setup", stage(func(i int) error {
		_, err := defaultExplore(uint64(i%floorSeeds) + 1).Normalize()
		return err
	}))
	b.Run("sim", stage(func(i int) error {
		_, _, err := protocols.Run(defaultExplore(uint64(i%floorSeeds) + 1))
		return err
	}))
	b.Run("check", stage(func(i int) error {
		k := i % floorSeeds
		checker.Check(trs[k], checker.Options{LeaseMs: scs[k].LeaseMs, InitialStock: scs[k].Stock})
		return nil
	}))
	b.Run("node", stage(func(int) error {
		sim.NewStandalone(1).Close()
		return nil
	}))
	b.Run("floor-node", func(b *testing.B) {
		benchFloor(b, cmds, func() (func(c recordedCommand), func()) {
			s := sim.NewStandalone(1)
			conns := map[string]int{}
			return func(c recordedCommand) {
				conn, ok := conns[c.client]
				if !ok {
					conn = len(conns)
					conns[c.client] = conn
				}
				s.SetNow(c.at)
				s.Do(conn, c.args...)
			}, s.Close
		})
	})
	b.Run("floor-bare", func(b *testing.B) {
		benchFloor(b, cmds, func() (func(c recordedCommand), func()) {
			n := newBareNode()
			return func(c recordedCommand) { n.do(c.at, c.client, c.args) }, n.eng.Close
		})
	})
}

// stage benchmarks fn, called with the iteration number.
func stage(fn func(i int) error) func(b *testing.B) {
	return func(b *testing.B) {
		b.ReportAllocs()
		start := cpuTime()
		i := 0
		for b.Loop() {
			if err := fn(i); err != nil {
				b.Fatal(err)
			}
			i++
		}
		reportCPU(b, cpuTime()-start, i)
	}
}

// benchFloor replays one run's commands per iteration on a node made by
// fresh, outside the timer; the node's Lua state goes back to the pool
// after the run, as in a run of the sim.
func benchFloor(b *testing.B, runs [][]recordedCommand, fresh func() (func(recordedCommand), func())) {
	b.ReportAllocs()
	n, i := 0, 0
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		do, done := fresh()
		b.StartTimer()
		start := cpuTime()
		for _, c := range runs[i%len(runs)] {
			do(c)
		}
		cpu += cpuTime() - start
		b.StopTimer()
		done()
		b.StartTimer()
		n += len(runs[i%len(runs)])
		i++
	}
	b.ReportMetric(float64(n)/float64(i), "cmds/op")
	reportCPU(b, cpu, i)
}

// replayMismatches replays every run on a fresh sim node and counts the
// replies that differ from the recorded ones: the floor must do the
// run's own work.
func replayMismatches(runs [][]recordedCommand) int {
	bad := 0
	for _, cmds := range runs {
		s := sim.NewStandalone(1)
		conns := map[string]int{}
		for _, c := range cmds {
			conn, ok := conns[c.client]
			if !ok {
				conn = len(conns)
				conns[c.client] = conn
			}
			s.SetNow(c.at)
			if got := s.Do(conn, c.args...).String(); got != c.reply {
				bad++
			}
		}
		s.Close()
	}
	return bad
}

// cpuTime is the process's user plus system CPU time so far. Unlike
// ns/op, CPU time does not grow while other work has the cores, so
// cpu-ns/op compares runs taken on a loaded machine (collector included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports cpu, spent over n iterations, per iteration.
func reportCPU(b *testing.B, cpu time.Duration, n int) {
	if n > 0 {
		b.ReportMetric(float64(cpu)/float64(n), "cpu-ns/op")
	}
}

// floorCache shares compiled scripts between the bare nodes, as a
// pool's runs do.
var floorCache luafast.Cache
