package checker

import (
	"fmt"
	"strconv"
)

const maxTime = int64(^uint64(0) >> 1)

func fmtMs(ns int64) string {
	b := make([]byte, 0, 24)
	b = strconv.AppendFloat(append(b, "t="...), float64(ns)/1e9, 'f', 1, 64) // as %.1f
	return string(append(b, " s"...))
}

func fmtDur(ns int64) string {
	if ns < 0 {
		ns = -ns
	}
	if ns >= 1e9 {
		return fmt.Sprintf("%.1f s", float64(ns)/1e9)
	}
	return fmt.Sprintf("%d ms", ns/1e6)
}
