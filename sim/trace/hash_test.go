package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"testing"
	"time"
)

// wholeHash is the definition Hash streams: SHA-256 of json.Marshal of the
// trace, nil lists as [].
func wholeHash(t *Trace) string {
	c := *t
	if c.Events == nil {
		c.Events = []Event{}
	}
	if c.Ops == nil {
		c.Ops = []Op{}
	}
	b, err := json.Marshal(&c)
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func sampleTrace(events, ops int, scripts bool) *Trace {
	tr := &Trace{Stats: Stats{SimNs: 42, Events: events, RedisCommands: events / 2}}
	for i := range events {
		var e Event
		switch i % 3 {
		case 0:
			e = Command("redis", "c1/t1", "lock<&>", []string{"EVALSHA", "sha1:ab", "1", "lock<&>", strconv.Itoa(i)}, "OK", KeyCreated)
		case 1:
			e = Pause("c2", "gc-pause \u2028 \"quoted\"", time.Duration(i)*time.Millisecond)
		default:
			e = Expire("redis", "k"+strconv.Itoa(i))
		}
		e.T = int64(i)
		tr.Events = append(tr.Events, e)
	}
	for i := range ops {
		tr.Ops = append(tr.Ops, Op{ID: i, Client: "c1/t1", Process: "c1", Kind: "acquire", Key: "lock", Result: "ok", Call: int64(i), Return: -1})
	}
	if scripts {
		tr.Scripts = map[string]string{"b": "return 1", "a": "return redis.call('GET', KEYS[1]) <& >"}
	}
	return tr
}

func TestHashStreamsTheCanonicalJSON(t *testing.T) {
	// Enough events to fill Hash's buffer several times over.
	for _, n := range []int{0, 1, 2, 333, 1000, 3001} {
		for _, scripts := range []bool{false, true} {
			tr := sampleTrace(n, n/3, scripts)
			if got, want := tr.Hash(), wholeHash(tr); got != want {
				t.Fatalf("%d events, scripts %v: streamed %s, whole %s", n, scripts, got, want)
			}
		}
	}
	empty := &Trace{Events: []Event{}, Scripts: map[string]string{}}
	if got, want := empty.Hash(), (&Trace{}).Hash(); got != want {
		t.Fatalf("empty lists hash %s, nil lists %s", got, want)
	}
}

// BenchmarkHashSample hashes a made-up 100,000-event trace (BenchmarkHash
// hashes a real one).
func BenchmarkHashSample(b *testing.B) {
	tr := sampleTrace(100_000, 10_000, true)
	b.ReportAllocs()
	for b.Loop() {
		tr.Hash()
	}
}
