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
// (never replaced by a regular file); anything else is refused. Missing
// parent directories are made. An error names path, never the temporary
// file.
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
// it names no directory, socket or block device, its directory exists or
// can be made (its nearest existing ancestor is a directory), and a file
// can be made there (probeDir).
// (A FIFO without a reader is found only when written.)
func CheckOutput(path string) error {
	target, st, err := resolveOutput(path)
	if err == nil {
		err = checkParent(filepath.Dir(target))
	}
	if err == nil && (st == nil || st.Mode().IsRegular()) {
		err = probeDir(filepath.Dir(target))
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// probeDir says whether a file can be made in dir, or, when dir is still
// to be made, in its nearest existing ancestor: it makes an empty
// temporary file there and removes it. (Permission bits alone do not
// tell: root ignores them, and a read-only or special file system
// refuses what they allow.)
func probeDir(dir string) error {
	d := dir
	for {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			break
		}
		if filepath.Dir(d) == d {
			return nil
		}
		d = filepath.Dir(d)
	}
	f, err := os.CreateTemp(d, ".locksim-probe-*")
	if err != nil {
		if d == dir {
			return fmt.Errorf("cannot write in %s: %w", d, bare(err))
		}
		return fmt.Errorf("cannot make its directory in %s: %w", d, bare(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// checkParent reports a directory that cannot be made: one of its
// existing ancestors is not a directory.
func checkParent(dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		switch {
		case err == nil && st.IsDir():
			return nil
		case err == nil:
			return fmt.Errorf("%s is not a directory", d)
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return bare(err)
		case filepath.Dir(d) == d:
			return nil
		}
	}
}

// makeParent makes the missing directories above path.
func makeParent(path string) error {
	if err := MakeDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("cannot make its directory: %w", err)
	}
	return nil
}

// MakeDir makes dir and its missing parents. Its error says which part
// of dir stands in the way ("out is not a directory") or why dir could
// not be made, naming dir's own parts only.
func MakeDir(dir string) error {
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		return nil
	}
	if err := checkParent(dir); err != nil {
		return err
	}
	if st, serr := os.Stat(dir); serr == nil && !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	return fmt.Errorf("%s: %w", dir, bare(err))
}

// bare strips the file name from a file-system error: the caller names
// the user's path, and a temporary file's name would only confuse.
func bare(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
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
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR): // (a parent that is a file: checkParent says so)
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
	if err := makeParent(path); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return bare(err)
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
	return bare(err)
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
