package trace

import (
	"strconv"
	"strings"
)

// Precision is how many decimals of a second times print with, from 1
// (tenths, the simulator's) to 9 (nanoseconds); below 1 it is 1. Every
// text that states a time or a duration of a trace goes through it.
type Precision int8

// Tenths is the simulator's precision: its faults and leases are
// seconds long.
const Tenths Precision = 1

// PrecisionFor is the coarsest precision that tells apart two times gap
// ns apart, at least tenths (gap <= 0: tenths).
func PrecisionFor(gap int64) Precision {
	p, unit := Tenths, int64(1e8)
	for gap > 0 && unit > gap && p < 9 {
		p, unit = p+1, unit/10
	}
	return p
}

func (p Precision) digits() int { return int(max(p, Tenths)) }

// Seconds prints ns as seconds: "1.234 s".
func (p Precision) Seconds(ns int64) string {
	b := strconv.AppendFloat(make([]byte, 0, 24), float64(ns)/1e9, 'f', p.digits(), 64)
	return string(append(b, " s"...))
}

// At prints the time ns: "t=1.234 s".
func (p Precision) At(ns int64) string { return "t=" + p.Seconds(ns) }

// Dur prints a duration (its absolute value): seconds from 1 s, else
// milliseconds. At tenths, as the simulator prints it: "70.0 s", "999 ms"
// (truncated); finer, to p's decimals without trailing zeros: "1.60019 s",
// "500 ms", "0.5 ms".
func (p Precision) Dur(ns int64) string {
	if ns < 0 {
		ns = -ns
	}
	if p.digits() == 1 {
		if ns >= 1e9 {
			return p.Seconds(ns)
		}
		return strconv.FormatInt(ns/1e6, 10) + " ms"
	}
	v, d, unit := float64(ns)/1e9, p.digits(), " s"
	if ns < 1e9 {
		v, d, unit = float64(ns)/1e6, max(d-3, 0), " ms"
	}
	s := strconv.FormatFloat(v, 'f', d, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + unit
}
