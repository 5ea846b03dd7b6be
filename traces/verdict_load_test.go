package traces

import (
	"reflect"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/locksim/locksim/protocols"
)

// heaviestScenarios are the corpus's three scenarios with the most
// operations, and each of them again with eight times the clients and
// twice the operations per client.
func heaviestScenarios(t *testing.T) []protocols.Scenario {
	type sized struct {
		sc  protocols.Scenario
		ops int
	}
	var all []sized
	for _, ref := range References() {
		f, err := Read(corpusPath(ref.Name))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, sized{f.Scenario, len(f.Trace.Ops) + len(f.Trace.Events)})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].ops > all[j].ops })
	var out []protocols.Scenario
	for _, s := range all[:3] {
		big := s.sc
		big.Clients *= 8
		big.Ops *= 2
		big.Stock = 0
		out = append(out, s.sc, big)
	}
	return out
}

// busy keeps n goroutines spinning until the returned stop is called.
func busy(n int) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for !done.Load() {
				for i := range 1 << 16 {
					x ^= i
				}
				runtime.Gosched()
			}
			_ = x
		}()
	}
	return func() { done.Store(true); wg.Wait() }
}

// TestVerdictIndependentOfLoad runs the heaviest corpus scenarios on an
// idle machine and again with four busy goroutines competing for the
// cores: the trace and the whole report must be the same, since the
// checker bounds its search by steps, not by time.
func TestVerdictIndependentOfLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the heaviest scenarios twice")
	}
	scs := heaviestScenarios(t)
	idle := make([]*File, len(scs))
	for i, sc := range scs {
		o, err := Execute(sc)
		if err != nil {
			t.Fatal(err)
		}
		idle[i] = o.File
	}
	stop := busy(4)
	defer stop()
	for i, sc := range scs {
		o, err := Execute(sc)
		if err != nil {
			t.Fatal(err)
		}
		if o.File.TraceSHA256 != idle[i].TraceSHA256 || !reflect.DeepEqual(o.File.Report, idle[i].Report) {
			t.Fatalf("%s (%d clients): loaded run differs from the idle one:\nidle   %s %+v\nloaded %s %+v",
				sc.Protocol, sc.Clients, idle[i].Report.Verdict, idle[i].Report.Checked, o.File.Report.Verdict, o.File.Report.Checked)
		}
	}
}
