package protocols

import (
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
