package traces

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/locksim/locksim/sim/trace"

	"github.com/locksim/locksim/protocols"
)

// goldenScenarios are fixed (not drawn from the catalog, which grows), so
// their summaries and hashes pin the sim and the checker across processes
// and machines.
var goldenScenarios = []protocols.Scenario{
	{Seed: 1, Protocol: "setnx-del", Workload: "unique-name", FaultKinds: []string{"gc-pause"}},
	{Seed: 2, Protocol: "setnx-lua-del", Workload: "stock", FaultKinds: []string{"reply-loss", "clock-jump"}},
	{Seed: 3, Protocol: "setnx-lua-del", Workload: "unique-name", Topology: "replicated", FaultKinds: []string{"failover", "partition"}},
	{Seed: 4, Protocol: "setnx-del", Workload: "stock", FaultKinds: []string{"client-crash", "node-restart", "clock-drift"}, Persistence: "everysec"},
	{Seed: 5, Protocol: "setnx-lua-del", Workload: "stock", Topology: "replicated", FaultKinds: []string{"replication-lag", "watchdog-stall", "slow-work"}},
	// Swarm: the fault subset, timing and clients are drawn from the seed.
	{Seed: 6, Protocol: "redisson", Workload: "lock-set", Swarm: true, FaultKinds: []string{"gc-pause", "failover", "partition", "node-restart", "blackhole", "delay"}},
	{Seed: 7, Protocol: "redlock", Workload: "unique-name", Swarm: true, FaultKinds: []string{"clock-jump", "node-restart"}},
}

// TestTraceHashGolden pins a few runs, so that a trace and its verdict
// are the same in every process and on every machine, not only twice in
// one test. Each run's readable summary (summarize: the verdict table,
// the first events and operations, the trace's hash for the rest) is
// committed in testdata/golden; a change prints a line diff. Regenerate
// the summaries, only with a change meant to alter traces or verdicts,
// with
//
//	go test ./traces -run 'TraceHashGolden|ReferenceCorpus' -update
func TestTraceHashGolden(t *testing.T) {
	for i, sc := range goldenScenarios {
		o, err := Execute(sc)
		if err != nil {
			t.Fatalf("golden %d: %v", i, err)
		}
		got := summarize(sc, o.File)
		path := filepath.Join("testdata", "golden", fmt.Sprintf("%d-%s-%s.txt", i, sc.Protocol, sc.Workload))
		if *update {
			if err := WriteAtomic(path, []byte(got)); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (regenerate: go test ./traces -run TraceHashGolden -update)", err)
		}
		if d := lineDiff(string(want), got, 60); d != "" {
			t.Errorf("golden %d (%s/%s/%v) differs from %s (- committed, + this run):\n%s", i, sc.Protocol, sc.Workload, sc.FaultKinds, path, d)
		}
	}
}

// Summaries keep this many events and operations: the trace's hash
// stands for the rest.
const (
	summaryEvents = 40
	summaryOps    = 20
)

// summarize is a run's readable summary: its scenario, verdict,
// violations, damage and checks, its first events and operations as
// text lines, and the trace's hash.
func summarize(sc protocols.Scenario, f *File) string {
	var b strings.Builder
	fmt.Fprintf(&b, "scenario: seed %d, %s, %s, faults %s", sc.Seed, sc.Protocol, sc.Workload, strings.Join(sc.FaultKinds, ","))
	if sc.Topology != "" {
		fmt.Fprintf(&b, ", topology %s", sc.Topology)
	}
	if sc.Swarm {
		b.WriteString(", swarm")
	}
	r := f.Report
	fmt.Fprintf(&b, "\nverdict: %s\n", r.Verdict)
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "violation: %s %s", v.Property, v.Cause)
		if v.Reason != "" {
			fmt.Fprintf(&b, " (%s)", v.Reason)
		}
		fmt.Fprintf(&b, " on %s by %s at %.1f ms\n", v.Key, strings.Join(v.Clients, ","), v.AtMs)
	}
	fmt.Fprintf(&b, "damage: %+v\n", r.Damage)
	for _, c := range r.Checked {
		fmt.Fprintf(&b, "checked: %s with %s over %d operations: %s\n", c.Property, c.Model, c.Operations, c.Result)
	}
	tr := f.Trace
	fmt.Fprintf(&b, "events: %d, the first %d:\n", len(tr.Events), min(len(tr.Events), summaryEvents))
	for _, e := range tr.Events[:min(len(tr.Events), summaryEvents)] {
		b.WriteString("  " + eventLine(e) + "\n")
	}
	fmt.Fprintf(&b, "operations: %d, the first %d:\n", len(tr.Ops), min(len(tr.Ops), summaryOps))
	for _, op := range tr.Ops[:min(len(tr.Ops), summaryOps)] {
		fmt.Fprintf(&b, "  %s %s %s %q -> %q [%s, %s]\n", op.Client, op.Kind, op.Key, op.Value, op.Result, ms(op.Call), ms(op.Return))
	}
	fmt.Fprintf(&b, "hash: %s\n", tr.Hash())
	return b.String()
}

// eventLine is one event as text: time, kind, party, client, key, the
// command and its reply, and what it did to the key.
func eventLine(e trace.Event) string {
	parts := []string{ms(e.T), e.Kind, e.Party}
	for _, s := range []string{e.Client, e.Key} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if len(e.Args) > 0 {
		parts = append(parts, fmt.Sprintf("%q", e.Args))
	}
	if e.Reply != "" {
		parts = append(parts, "-> "+strconv.Quote(e.Reply))
	}
	if e.Change != "" {
		parts = append(parts, "["+e.Change+"]")
	}
	if e.Detail != "" {
		parts = append(parts, strconv.Quote(e.Detail))
	}
	if e.DurNs != 0 {
		parts = append(parts, "for "+ms(e.DurNs))
	}
	if e.Fault != 0 {
		parts = append(parts, fmt.Sprintf("(fault %d)", e.Fault))
	}
	return strings.Join(parts, " ")
}

// ms is a time in nanoseconds as milliseconds, to the nanosecond; "open"
// for an operation that never returned.
func ms(ns int64) string {
	if ns < 0 {
		return "open"
	}
	return fmt.Sprintf("%d.%06d ms", ns/1e6, ns%1e6)
}
