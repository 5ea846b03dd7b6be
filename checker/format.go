package checker

import "fmt"

const maxTime = int64(^uint64(0) >> 1)

func fmtMs(ns int64) string {
	return fmt.Sprintf("t=%.1f s", float64(ns)/1e9)
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
