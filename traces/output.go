package traces

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// WriteAtomic writes data to path. A regular file (or a new one) is
// replaced atomically through a temporary file and a rename, so a reader
// never sees half of it; a symlink is followed and its target replaced the
// same way; a character device or a FIFO with a reader is written through
// (never replaced by a regular file); anything else is refused.
func WriteAtomic(path string, data []byte) error {
	target, st, err := resolveOutput(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if st != nil && !st.Mode().IsRegular() {
		if err := writeThrough(target, st, data); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return nil
	}
	if err := replaceFile(target, data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// CheckOutput says before any work whether WriteAtomic can write path:
// it names no directory, socket or block device, and its directory
// exists. (A FIFO without a reader is found only when written.)
func CheckOutput(path string) error {
	target, _, err := resolveOutput(path)
	if err == nil {
		var st os.FileInfo
		if st, err = os.Stat(filepath.Dir(target)); err == nil && !st.IsDir() {
			err = errors.New("its directory is not a directory")
		}
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// resolveOutput follows symlinks in path and returns where to write and
// what is there now (nil when nothing is).
func resolveOutput(path string) (string, os.FileInfo, error) {
	target := path
	if lst, err := os.Lstat(path); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", nil, fmt.Errorf("a symlink whose target cannot be resolved: %v", err)
		}
		target = t
	}
	st, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return target, nil, nil
	case err != nil:
		return "", nil, err
	case st.IsDir():
		return "", nil, errors.New("is a directory")
	case st.Mode()&(fs.ModeSocket|fs.ModeDevice) != 0 && st.Mode()&fs.ModeCharDevice == 0:
		return "", nil, errors.New("is a socket or block device: refusing to write there")
	}
	return target, st, nil
}

// writeThrough writes data into an existing device or FIFO. A FIFO
// without a reader is refused rather than waited on.
func writeThrough(path string, st os.FileInfo, data []byte) error {
	flags := os.O_WRONLY
	if st.Mode()&fs.ModeNamedPipe != 0 {
		flags |= syscall.O_NONBLOCK
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) {
			return errors.New("a FIFO with no reader: refusing to wait")
		}
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// replaceFile writes data to a temporary file next to path, syncs it and
// renames it over path. The temporary file is removed on failure and, via
// RemoveTemps, on a signal.
func replaceFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	temps.add(name)
	err = writeSync(tmp, data)
	if err == nil {
		err = os.Chmod(name, 0o644)
	}
	temps.mu.Lock()
	defer temps.mu.Unlock()
	if err == nil && temps.closed {
		err = errors.New("interrupted")
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	delete(temps.names, name)
	if err != nil {
		os.Remove(name)
	}
	return err
}

func writeSync(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// tempSet tracks the temporary files being written, so that a signal
// handler can remove them before the process exits.
type tempSet struct {
	mu     sync.Mutex
	names  map[string]bool
	closed bool
}

var temps = &tempSet{names: map[string]bool{}}

func (t *tempSet) add(name string) {
	t.mu.Lock()
	t.names[name] = true
	t.mu.Unlock()
}

// RemoveTemps removes every temporary file being written and makes later
// writes fail before their rename, for a process about to exit on a
// signal.
func RemoveTemps() {
	temps.mu.Lock()
	temps.closed = true
	for name := range temps.names {
		os.Remove(name)
	}
	temps.mu.Unlock()
}

// SameFile reports whether two paths name the same file (after symlinks),
// or would once written: equal cleaned absolute paths. Character devices
// (/dev/null) are never the same file: writing one twice loses nothing.
func SameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb) && sa.Mode()&fs.ModeCharDevice == 0
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}
