package checker

import (
	"slices"
	"testing"

	"github.com/locksim/locksim/model"
)

func TestFailOnPolicy(t *testing.T) {
	fenced := Check(fencedPause(model.ResRejected), Options{LeaseMs: 10000}).Report
	unfenced := Check(fencedPause(ok), Options{LeaseMs: 10000}).Report
	if got := fenced.Broken(); !slices.Equal(got, []string{PropMutex}) {
		t.Fatalf("fenced pause broke %v, want mutual exclusion alone", got)
	}
	if got := unfenced.Broken(); !slices.Equal(got, []string{PropMutex, PropDamage}) {
		t.Fatalf("unfenced pause broke %v, want mutual exclusion and damage", got)
	}
	for _, c := range []struct {
		policy          string
		fenced, unfence bool
	}{
		{"any", true, true},
		{"damage", false, true},
		{"exclusion", true, true},
		{"ownership,liveness", false, false},
		{" damage , exclusion", true, true},
	} {
		p, err := ParseFailOn(c.policy)
		if err != nil {
			t.Fatal(err)
		}
		if fenced.Fails(p) != c.fenced || unfenced.Fails(p) != c.unfence {
			t.Errorf("--fail-on %s: fenced fails %v, unfenced %v; want %v, %v", c.policy,
				fenced.Fails(p), unfenced.Fails(p), c.fenced, c.unfence)
		}
	}
	for _, bad := range []string{"", "mutex", "damage,", "resource"} {
		if _, err := ParseFailOn(bad); err == nil {
			t.Errorf("ParseFailOn(%q) accepted", bad)
		}
	}
	if p, _ := ParseFailOn("liveness,ownership"); p.String() != "ownership,liveness" {
		t.Errorf("policy spelt %q", p.String())
	}
}
