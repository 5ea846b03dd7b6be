package trace

import (
	"testing"
	"time"
)

func TestPartitionCuts(t *testing.T) {
	for _, c := range []struct {
		link, kind, from, to string
		want                 bool
	}{
		{"c1<->redis", FaultPartition, "c1", "redis", true},
		{"c1<->redis", FaultPartition, "redis", "c1", true},
		{"c1->redis", FaultPartition, "c1", "redis", true},
		{"c1->redis", FaultPartition, "redis", "c1", false},
		{"c1", FaultPartition, "redis", "c1", true},
		{"c1", FaultPartition, "c2", "redis", false},
		{"c1<->redis", FaultPartition, "c2", "redis", false},
		{"c1<->redis", FaultDelay, "c1", "redis", false},
	} {
		e := Partition(c.link, c.kind, time.Second)
		if got := e.Cuts(c.from, c.to); got != c.want {
			t.Errorf("%s %s cuts %s -> %s: %v, want %v", c.kind, c.link, c.from, c.to, got, c.want)
		}
	}
}

func TestFaultKind(t *testing.T) {
	for _, c := range []struct {
		e    Event
		want string
	}{
		{FaultApplied("c1", FaultWatchdogStall, "background threads stalled", time.Second), FaultWatchdogStall},
		{Partition("c1<->redis", FaultDelay, time.Second), FaultDelay},
		{Heal("c1<->redis", FaultPartition), FaultPartition},
		{Pause("c1", FaultGCPause, time.Second), FaultGCPause},
		{Expire("redis", "k"), ""},
	} {
		if got := c.e.FaultKind(); got != c.want {
			t.Errorf("%+v: fault kind %q, want %q", c.e, got, c.want)
		}
	}
}

func TestPromoteReplaced(t *testing.T) {
	if got := Promote("redis-r1", "redis", "offset 3 of 8").Replaced(); got != "redis" {
		t.Fatalf("replaced %q, want redis", got)
	}
	if got := Lost(EvPromote, "redis-r1", "k", "not replicated from redis").Replaced(); got != "" {
		t.Fatalf("a lost key's event names %q as replaced", got)
	}
}

func TestClockDriftPPM(t *testing.T) {
	for _, ppm := range []int64{103482, -5000, 0} {
		e := ClockDrift("redis", ppm)
		if got, ok := e.DriftPPM(); !ok || got != ppm {
			t.Errorf("%+v: drift %d %v, want %d", e, got, ok, ppm)
		}
		if !CitesFault(e, FaultClockDrift) {
			t.Errorf("%+v does not cite a clock-drift fault", e)
		}
	}
	if _, ok := FaultApplied("c1", FaultSlowWork, "clock drift 5 ppm", 0).DriftPPM(); ok {
		t.Error("a slow-work fault read as a drift")
	}
}
