package checker

import (
	"bytes"
	"strings"
	"testing"

	"github.com/locksim/locksim/sim"
)

func TestLinearizationShowsEscapedFaults(t *testing.T) {
	b := &tb{}
	key := `<img src=x onerror="alert(1)">`
	b.op("c1/t1", acq, key, ok, 0, 0.2).setnx(0.1, "redis", "c1/t1", key, "10")
	b.pause(1, "c1", 20).expire(10.1, "redis", key)
	b.add(3, sim.Event{Kind: sim.EvPartition, Party: "c1", Detail: "<b>redis</b>", DurNs: sec(2)})
	b.add(4, sim.Event{Kind: sim.EvClockJump, Party: "redis", DurNs: sec(1)})
	b.add(5, sim.Event{Kind: sim.EvPromote, Party: "redis", Key: key, Change: sim.KeyLost})
	b.add(6, sim.Event{Kind: sim.EvNodeStart, Party: "redis", Detail: "persistence none"})
	b.add(7, sim.Event{Kind: sim.EvCrash, Party: "c9"})
	b.op("c2/t1", acq, key, ok, 10.2, 10.3).setnx(10.25, "redis", "c2/t1", key, "10")
	b.op("c1/t1", rel, key, ok, 21, 21.1)
	res := Check(b.trace(), Options{LeaseMs: 10000})
	var buf bytes.Buffer
	if err := res.WriteLinearization(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"GC pause 20.0 s", "partition to \\u0026lt;b\\u0026gt;redis", "clock jump +1.0 s",
		"promote: lost \\u0026lt;img", "restart", "crash", "expired \\u0026lt;img", "fault c1", "redis redis"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// json.Marshal writes < as \u003c: an unescaped string would show up so.
	if strings.Contains(page, `\u003cimg`) || strings.Contains(page, `\u003cb\u003e`) {
		t.Errorf("page holds an unescaped string")
	}
}

func TestLinearizationNeedsLockOps(t *testing.T) {
	if err := Check(&sim.Trace{}, Options{}).WriteLinearization(&bytes.Buffer{}); err == nil {
		t.Fatal("no error for a trace without lock operations")
	}
}
