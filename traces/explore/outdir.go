package explore

import (
	"path/filepath"
	"strings"

	"github.com/locksim/locksim/checker"
)

// The files explore --out writes in its directory: the summary, the lock
// that keeps a second explore out, and per cause its first trace
// (CauseFile, .json) and that trace's timeline (.html).
const (
	SummaryFile = "summary.json"
	LockFile    = ".locksim.lock"
)

// CauseFile is where explore --out keeps the first trace (ext ".json")
// or its timeline (".html") of one cause.
func CauseFile(out, property, cause, ext string) string {
	return filepath.Join(out, property+"-"+cause+ext)
}

// TimelineOf is the timeline file of a cause's trace file.
func TimelineOf(trace string) string { return strings.TrimSuffix(trace, ".json") + ".html" }

// OwnsName reports whether explore --out may write a file of this base
// name in its directory: another output must not take it.
func OwnsName(name string) bool {
	if name == SummaryFile || name == LockFile || strings.HasSuffix(name, ".json") {
		return true
	}
	for _, p := range []string{checker.PropMutex, checker.PropDamage, checker.PropLiveness} {
		if strings.HasPrefix(name, p+"-") {
			return true
		}
	}
	return false
}
