package baseline

import (
	"context"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

func TestPausesOf(t *testing.T) {
	ms := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
	pause := func(target string, at, dur int64) trace.Fault {
		return trace.Fault{Kind: trace.FaultGCPause, Target: target, AtMs: at, DurMs: dur}
	}
	tests := []struct {
		name   string
		faults []trace.Fault
		want   pauses
	}{
		{"none", nil, nil},
		{"other client and kinds", []trace.Fault{pause("c2", 0, 10), {Kind: trace.FaultSlowWork, Target: "c1", DurMs: 5}}, nil},
		{"sorted", []trace.Fault{pause("c1", 500, 100), pause("c1", 100, 50)},
			pauses{{ms(100), ms(150)}, {ms(500), ms(600)}}},
		{"a pause during a pause is ignored", []trace.Fault{pause("c1", 100, 1000), pause("c1", 500, 2000)},
			pauses{{ms(100), ms(1100)}}},
		{"back to back", []trace.Fault{pause("c1", 100, 100), pause("c1", 200, 100)},
			pauses{{ms(100), ms(200)}, {ms(200), ms(300)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := pausesOf(protocols.Scenario{Faults: tc.faults}, "c1")
			if !slices.Equal(got, tc.want) {
				t.Fatalf("pausesOf = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPausesCovering(t *testing.T) {
	ps := pauses{{100, 200}, {200, 300}, {500, 600}}
	tests := []struct {
		now  time.Duration
		end  time.Duration
		want bool
	}{{0, 0, false}, {99, 0, false}, {100, 200, true}, {199, 200, true}, {200, 300, true},
		{300, 0, false}, {450, 0, false}, {500, 600, true}, {600, 0, false}, {1000, 0, false}}
	for _, tc := range tests {
		end, ok := ps.covering(tc.now)
		if ok != tc.want || end != tc.end {
			t.Errorf("covering(%d) = %d, %v; want %d, %v", tc.now, end, ok, tc.end, tc.want)
		}
	}
}

func TestCheckRefusesWhatTheRealSideCannotRun(t *testing.T) {
	ok := Scaled("setnx-del", "unique-name")
	tests := []struct {
		name string
		edit func(*protocols.Scenario)
		want string
	}{
		{"scaled setnx-del", func(*protocols.Scenario) {}, ""},
		{"scaled setnx-lua-del stock", func(sc *protocols.Scenario) { sc.Protocol, sc.Workload = "setnx-lua-del", "stock" }, ""},
		{"protocol", func(sc *protocols.Scenario) { sc.Protocol = "redlock" }, "has no real-redis version"},
		{"fault", func(sc *protocols.Scenario) { sc.FaultKinds = []string{trace.FaultClockJump} }, "gc-pause only"},
		{"topology", func(sc *protocols.Scenario) { sc.Topology = protocols.TopoReplicated }, "topology"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := ok
			tc.edit(&sc)
			sc, err := sc.Normalize()
			if err != nil {
				t.Fatal(err)
			}
			err = Check(sc)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("Check = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestRatio(t *testing.T) {
	sim := &Result{Found: true, Wall: 10 * time.Millisecond}
	if r, lower := Ratio(&Result{Found: true, Wall: 5 * time.Second}, sim); r != 500 || lower {
		t.Errorf("Ratio = %v, %v; want 500, false", r, lower)
	}
	if r, lower := Ratio(&Result{Wall: time.Second}, sim); r != 100 || !lower {
		t.Errorf("Ratio (real found none) = %v, %v; want 100, true", r, lower)
	}
	if r, _ := Ratio(&Result{Found: true, Wall: time.Second}, &Result{Wall: time.Second}); r != 0 {
		t.Errorf("Ratio (sim found none) = %v, want 0", r)
	}
}

// timeline is one fixed experiment: the scaled setting with 2 clients, one
// operation each, 300 ms of work, c2 starting 50 ms after c1, at most 1 ms
// of think time (0 would mean the default), and explicit pauses.
func timeline(protocol, workload string, faults ...trace.Fault) protocols.Scenario {
	sc := Scaled(protocol, workload)
	sc.Clients, sc.Ops, sc.WorkMs, sc.ThinkMs, sc.StaggerMs = 2, 1, 300, 1, 50
	sc.FaultKinds, sc.Faults = nil, faults
	return sc
}

// TestSameVerdictAsSim runs fixed timelines on both sides: the verdict,
// and for a violation its property, key and clients, must agree. c1
// holds the lock from about 1 ms to 301 ms and pauses at 150 ms; every
// margin is 50 ms or more (c2's start) and most are hundreds (a pause
// that outlasts the 1 s lease by 650 ms, or leaves the lock released
// 550 ms before it expires), so the real side's timing noise does not
// decide the outcome.
func TestSameVerdictAsSim(t *testing.T) {
	srv := needRedis(t)
	long := trace.Fault{Kind: trace.FaultGCPause, Target: "c1", AtMs: 150, DurMs: 1500}
	short := trace.Fault{Kind: trace.FaultGCPause, Target: "c1", AtMs: 150, DurMs: 300}
	tests := []struct {
		name string
		sc   protocols.Scenario
		key  string // "" when no violation is expected
	}{
		{"setnx-del unique-name long pause", timeline("setnx-del", "unique-name", long), "trava_nome_person-0"},
		{"setnx-lua-del unique-name long pause", timeline("setnx-lua-del", "unique-name", long), "trava_nome_person-0"},
		{"setnx-del stock long pause", timeline("setnx-del", "stock", long), "redisLock"},
		{"setnx-lua-del stock long pause", timeline("setnx-lua-del", "stock", long), "redisLock"},
		{"setnx-del unique-name short pause", timeline("setnx-del", "unique-name", short), ""},
		{"setnx-lua-del stock no fault", timeline("setnx-lua-del", "stock"), ""},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o, err := traces.Execute(tc.sc)
			if err != nil {
				t.Fatal(err)
			}
			rep := o.File.Report
			real, err := RunTrial(context.Background(), srv.Addr, i, tc.sc)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("sim: %s %v", rep.Verdict, rep.Violations)
			t.Logf("real-redis: %d acquires, first violation %v", real.Acquired, real.Violation)
			if tc.key == "" {
				if rep.Verdict != checker.VerdictOK || real.Violation != nil {
					t.Fatalf("want no violation on either side: sim %s, real %v", rep.Verdict, real.Violation)
				}
				return
			}
			if rep.Verdict != checker.VerdictViolation || real.Violation == nil {
				t.Fatalf("want a violation on both sides: sim %s, real %v", rep.Verdict, real.Violation)
			}
			v := rep.Violations[0]
			if v.Property != checker.PropMutex || v.Key != tc.key {
				t.Fatalf("sim: first violation %s on %s, want %s on %s", v.Property, v.Key, checker.PropMutex, tc.key)
			}
			rv := real.Violation
			if rv.Property != v.Property || rv.Key != v.Key || !slices.Equal(rv.Clients, v.Clients) {
				t.Fatalf("real-redis: %s on %s by %v; sim: %s on %s by %v", rv.Property, rv.Key, rv.Clients, v.Property, v.Key, v.Clients)
			}
		})
	}
}

// TestTimeToFirstViolation runs the scaled stock experiment on both sides
// with a small budget and logs the times and their ratio. It asserts
// nothing about timing; BenchmarkTimeToFirstViolation is the full
// comparison.
func TestTimeToFirstViolation(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the comparison runs real trials for seconds")
	}
	srv := needRedis(t)
	sc := Scaled("setnx-del", "stock")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	real, err := FirstViolationReal(ctx, RealConfig{Addr: srv.Addr, Base: sc, Trials: 20})
	if err != nil {
		t.Fatal(err)
	}
	simRes, err := FirstViolationSim(context.Background(), SimConfig{Base: sc, Runs: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if !simRes.Found {
		t.Fatalf("the sim found no violation in %d runs of %s / %s with gc-pause", simRes.Runs, sc.Protocol, sc.Workload)
	}
	t.Logf("%s, 8 s budget for the real side:\n%s", srv, Summary(sc, real, simRes))
}

// TestVerdictAgreement runs seeds 0..N-1 of each scaled experiment on
// both sides and logs how often their verdicts agree. Opt-in, since it
// takes about N seconds per experiment:
//
//	LOCKSIM_BASELINE_SEEDS=40 go test -run VerdictAgreement -v ./traces/baseline
func TestVerdictAgreement(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("LOCKSIM_BASELINE_SEEDS"))
	if n <= 0 {
		t.Skip("set LOCKSIM_BASELINE_SEEDS=N to compare the verdicts of N seeds")
	}
	srv := needRedis(t)
	workers := min(runtime.GOMAXPROCS(0), MaxWorkers)
	for _, protocol := range []string{"setnx-del", "setnx-lua-del"} {
		for _, workload := range []string{"unique-name", "stock"} {
			sc := Scaled(protocol, workload)
			real := make([]bool, n)
			var wg sync.WaitGroup
			seeds := make(chan int)
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range seeds {
						s := sc
						s.Seed = uint64(i)
						tr, err := RunTrial(context.Background(), srv.Addr, w, s)
						if err != nil {
							t.Error(err)
							continue
						}
						real[i] = tr.Violation != nil
					}
				}()
			}
			for i := range n {
				seeds <- i
			}
			close(seeds)
			wg.Wait()
			agree, simN, realN := 0, 0, 0
			var differ []int
			for i := range n {
				s := sc
				s.Seed = uint64(i)
				o, err := traces.Execute(s)
				if err != nil {
					t.Fatal(err)
				}
				v := o.File.Report.Verdict == checker.VerdictViolation
				if v {
					simN++
				}
				if real[i] {
					realN++
				}
				if v == real[i] {
					agree++
				} else {
					differ = append(differ, i)
				}
			}
			t.Logf("%s / %s: same verdict on %d of %d seeds; violations: sim %d, real-redis %d; seeds that differ: %v",
				protocol, workload, agree, n, simN, realN, differ)
		}
	}
}
