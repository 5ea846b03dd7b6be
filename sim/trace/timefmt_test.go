package trace

import "testing"

func TestPrecision(t *testing.T) {
	for _, c := range []struct {
		gap  int64
		want Precision
	}{{0, 1}, {-5, 1}, {3e9, 1}, {1e8, 1}, {99_999_999, 2}, {1e6, 3}, {500_000, 4}, {1000, 6}, {1, 9}} {
		if got := PrecisionFor(c.gap); got != c.want {
			t.Errorf("PrecisionFor(%d) = %d, want %d", c.gap, got, c.want)
		}
	}
	for _, c := range []struct {
		p       Precision
		ns      int64
		at, dur string
	}{
		{0, 1_250_000_000, "t=1.2 s", "1.2 s"}, // as %.1f
		{Tenths, 70_000_000_000, "t=70.0 s", "70.0 s"},
		{Tenths, 999_999_999, "t=1.0 s", "999 ms"},
		{3, 1_234_567, "t=0.001 s", "1 ms"},
		{4, 1_500_000, "t=0.0015 s", "1.5 ms"},
		{5, 500_000_000, "t=0.50000 s", "500 ms"},
		{5, 2_000_000_000, "t=2.00000 s", "2 s"},
		{6, -2_500, "t=-0.000003 s", "0.003 ms"},
		{9, 1_000_000_001, "t=1.000000001 s", "1.000000001 s"},
	} {
		if got := c.p.At(c.ns); got != c.at {
			t.Errorf("Precision(%d).At(%d) = %q, want %q", c.p, c.ns, got, c.at)
		}
		if got := c.p.Dur(c.ns); got != c.dur {
			t.Errorf("Precision(%d).Dur(%d) = %q, want %q", c.p, c.ns, got, c.dur)
		}
	}
}
