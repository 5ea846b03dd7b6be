package protocols

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

func TestMsFormatsWholeMilliseconds(t *testing.T) {
	for _, d := range []time.Duration{-time.Second, -1, 0, 1, time.Millisecond, 999 * time.Millisecond,
		time.Second, 10*time.Second + time.Microsecond, 30 * time.Second, 60 * time.Second, 61 * time.Second, time.Hour} {
		if got, want := ms(d), strconv.FormatInt(d.Milliseconds(), 10); got != want {
			t.Errorf("ms(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestFormatUUIDIsSprintf(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		a, b := r.Uint64(), r.Uint64()
		want := fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
		if got := formatUUID(a, b); got != want {
			t.Fatalf("formatUUID(%#x, %#x) = %q, want %q", a, b, got, want)
		}
	}
}

// byName answers as a map does, below and past its list's length.
func TestByNameIsAMap(t *testing.T) {
	var b byName[int]
	want := map[string]int{}
	for i := range 40 {
		name := strconv.Itoa(i % 13)
		switch i % 3 {
		case 2:
			b.del(name)
			delete(want, name)
		default:
			b.set(name, i)
			want[name] = i
		}
		for j := range 13 {
			if n := strconv.Itoa(j); b.get(n) != want[n] {
				t.Fatalf("step %d: %s is %d, want %d", i, n, b.get(n), want[n])
			}
		}
	}
}
