package sim

import (
	"hash/fnv"
	"math/rand/v2"
	"testing"
)

// A node's draws (SPOP, SRANDMEMBER, in a script too) are a function of
// the run's seed, whatever ran on its pooled store before.
func TestDrawsFollowTheSeed(t *testing.T) {
	draw := func(seed uint64) []string {
		w := New(Config{Seed: seed, Network: DefaultNetwork()})
		w.AddNode("redis")
		var got []string
		w.AddProcess("c1").Go("main", func(th *Thread) {
			for i := range 20 {
				th.Call("redis", "SADD", "s", string(rune('a'+i)))
			}
			for _, cmd := range [][]string{{"SPOP", "s"}, {"SRANDMEMBER", "s"}, {"EVAL", "return redis.call('SPOP', KEYS[1])", "1", "s"}} {
				r, err := th.Call("redis", cmd...)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, r.String())
			}
		})
		if _, err := w.Run(); err != nil {
			t.Fatal(err)
		}
		w.Release()
		return got
	}
	first := draw(5)
	for _, seed := range []uint64{9, 5, 5} {
		if got := draw(seed); seed == 5 && (len(got) != 3 || got[0] != first[0] || got[1] != first[1] || got[2] != first[2]) {
			t.Fatalf("seed 5 drew %v, then %v", first, got)
		}
	}
}

// A stream draws what rand.New(rand.NewPCG(seed, FNV-1a of its name))
// draws: the numbers every recorded trace was made with.
func TestStreamsAreSeededPCGs(t *testing.T) {
	for _, name := range []string{"", "network", "proc/c1", "faults/gc-pause", "retry/c12#2"} {
		h := fnv.New64a()
		h.Write([]byte(name))
		want := rand.New(rand.NewPCG(42, h.Sum64()))
		got := NewStreams(42).Get(name)
		for range 5 {
			if g, w := got.Uint64(), want.Uint64(); g != w {
				t.Fatalf("stream %q drew %d, want %d", name, g, w)
			}
		}
	}
}
