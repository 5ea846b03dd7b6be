package checker

import (
	"bytes"
	"strings"
	"testing"

	"github.com/locksim/locksim/sim/trace"
)

// porcupine 1.3.1 sets descriptions, tags and annotation texts with
// textContent and state descriptions with innerHTML: only the latter are
// escaped, or the page would show "&lt;" literally.
func TestLinearizationEscapesOnlyMarkup(t *testing.T) {
	b := &tb{}
	key := `<img src=x onerror="alert(1)">`
	owner := "c1<x>/t1"
	b.op(owner, acq, key, ok, 0, 0.2).setnx(0.1, "redis", owner, key, "10")
	b.pause(1, "c1", 20).expire(10.1, "redis", key)
	b.add(3, trace.Partition("c1<-><b>redis</b>", trace.FaultPartition, dur(2)))
	b.add(4, trace.ClockJump("redis", dur(1)))
	b.add(5, trace.Lost(trace.EvPromote, "redis", key, ""))
	b.add(6, trace.NodeStart("redis", "persistence none"))
	b.add(7, trace.Crash("c9"))
	b.op("c2/t1", acq, key, ok, 10.2, 10.3).setnx(10.25, "redis", "c2/t1", key, "10")
	b.op(owner, rel, key, ok, 21, 21.1)
	res := Check(b.trace(), Options{LeaseMs: 10000})
	var buf bytes.Buffer
	if err := res.WriteLinearization(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	// json.Marshal writes < as \u003c and & as \u0026.
	for _, want := range []string{"GC pause 20.0 s", "partition c1\\u003c-\\u003e\\u003cb\\u003eredis", "clock jump +1.0 s",
		"promote: lost \\u003cimg", "restart", "crash", "expired \\u003cimg", "fault c1", "redis redis",
		"held by c1\\u0026lt;x\\u0026gt;/t1"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, `held by c1\u003cx`) {
		t.Errorf("a state description reaches innerHTML unescaped")
	}
}

func TestLinearizationNeedsLockOps(t *testing.T) {
	if err := Check(&trace.Trace{}, Options{}).WriteLinearization(&bytes.Buffer{}); err == nil {
		t.Fatal("no error for a trace without lock operations")
	}
}
