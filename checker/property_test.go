package checker

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/model"
)

// span is one critical section, in milliseconds.
type span struct {
	client, key string
	from, to    int
}

// genSections draws properly serialised critical sections: per key, one
// after the other, each shorter than the 10 s lease, with refused
// acquires by other clients while a section runs.
func genSections(t *rapid.T) ([]span, int) {
	clients := rapid.IntRange(2, 6).Draw(t, "clients")
	keys := rapid.IntRange(1, 3).Draw(t, "keys")
	var out []span
	for k := 0; k < keys; k++ {
		at := rapid.IntRange(0, 500).Draw(t, "start")
		for range rapid.IntRange(1, 6).Draw(t, "sections") {
			c := rapid.IntRange(1, clients).Draw(t, "client")
			d := rapid.IntRange(50, 9000).Draw(t, "duration")
			out = append(out, span{fmt.Sprintf("c%d/t1", c), fmt.Sprintf("k%d", k), at, at + d})
			at += d + rapid.IntRange(10, 2000).Draw(t, "gap")
		}
	}
	return out, clients
}

func ms(v int) float64 { return float64(v) / 1000 }

// render writes the sections into a trace; skipDel leaves out the DEL of
// one section (its key is already gone).
func render(b *tb, secs []span, clients int, skipDel int) {
	for i, s := range secs {
		b.op(s.client, acq, s.key, ok, ms(s.from), ms(s.from+2)).setnx(ms(s.from+1), "redis", s.client, s.key, "10")
		b.op(s.client, rel, s.key, ok, ms(s.to), ms(s.to+2)).del(ms(s.to+1), "redis", s.client, s.key, i != skipDel)
		other := fmt.Sprintf("c%d/t9", 1+(i%clients))
		b.op(other, acq, s.key, model.ResFail, ms(s.from+5), ms(s.from+7)).setnxBusy(ms(s.from+6), "redis", other, s.key, "10")
	}
}

func TestSerialisedSectionsAreOK(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		secs, clients := genSections(t)
		b := &tb{}
		render(b, secs, clients, -1)
		if res := Check(b.trace(), Options{LeaseMs: 10000}); res.Verdict != VerdictOK {
			t.Fatalf("verdict %s: %+v", res.Verdict, res.Violations)
		}
	})
}

func TestOneOverlapIsAViolation(t *testing.T) {
	causes := []string{CausePrematureExpiry, CauseForeignRelease, CauseLocalLockOnly}
	rapid.Check(t, func(t *rapid.T) {
		secs, clients := genSections(t)
		i := rapid.IntRange(0, len(secs)-1).Draw(t, "victim")
		x := secs[i]
		yn := rapid.IntRange(1, clients).Filter(func(n int) bool { return fmt.Sprintf("c%d/t1", n) != x.client }).Draw(t, "intruder")
		y := fmt.Sprintf("c%d/t1", yn)
		cause := rapid.SampledFrom(causes).Draw(t, "cause")
		at := x.from + 3 + rapid.IntRange(0, x.to-x.from-20).Draw(t, "at")
		b := &tb{}
		skip := -1
		switch cause {
		case CausePrematureExpiry:
			b.expire(ms(at-1), "redis", x.key)
		case CauseForeignRelease:
			b.del(ms(at-1), "redis", y, x.key, true)
		}
		b.op(y, acq, x.key, ok, ms(at), ms(at+2))
		b.op(y, rel, x.key, ok, ms(at+4), ms(at+6))
		if cause != CauseLocalLockOnly {
			skip = i
			b.setnx(ms(at+1), "redis", y, x.key, "10").del(ms(at+5), "redis", y, x.key, true)
		}
		render(b, secs, clients, skip)
		res := Check(b.trace(), Options{LeaseMs: 10000})
		if res.Verdict != VerdictViolation {
			t.Fatalf("verdict %s after inserting %s into %+v", res.Verdict, y, x)
		}
		for _, v := range res.Violations {
			if v.Property == PropMutex && v.Cause == cause && slices.Equal(v.Clients, []string{x.client, y}) {
				return
			}
		}
		t.Fatalf("no %s violation between %s and %s: %+v", cause, x.client, y, res.Violations)
	})
}
