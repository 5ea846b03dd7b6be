package explore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/locksim/locksim/checker"
)

// The files explore --out writes in its directory: the summary, the lock
// that keeps a second explore out, and per cause its first trace
// (CauseFile, .json) and that trace's timeline (.html).
const (
	SummaryFile = "summary.json"
	LockFile    = ".locksim.lock"
)

// causeFile is where explore --out keeps the first trace (ext ".json")
// or its timeline (".html") of one cause.
func causeFile(out, property, cause, ext string) string {
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

// Earlier lists the files an earlier explore --out left in dir, by name
// and in name order: its summary, and each cause's first trace and
// timeline. Anything else there (a report the user named, their own
// files, the lock) is not explore's to replace. A missing dir (or a path
// through a file) has none.
func Earlier(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil // (making it will say what is in the way)
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && isOwnFile(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// isOwnFile reports whether explore --out writes a file of this name:
// the summary, or a cause's trace or timeline (CauseFile, TimelineOf).
func isOwnFile(name string) bool {
	if name == SummaryFile {
		return true
	}
	ext := filepath.Ext(name)
	if ext != ".json" && ext != ".html" {
		return false
	}
	for _, p := range checker.Properties() {
		if strings.HasPrefix(name, p+"-") && len(name) > len(p)+1+len(ext) {
			return true
		}
	}
	return false
}
