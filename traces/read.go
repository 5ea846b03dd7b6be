package traces

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/protocols"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/locksim/locksim/sim/trace"
)

// DefaultMaxInput is the size cap of an input file unless a command's
// --max-input-mb raises it.
const DefaultMaxInput = 256 << 20

// ErrTooLarge is returned for an input past its size or line cap.
var ErrTooLarge = errors.New("input too large")

// BytesPerLine sets a trace file's line cap: at most one line for each
// BytesPerLine bytes of its size cap (4,194,304 lines at the default
// 256 MB). locksim writes one event or operation a line, and its traces
// average over 100 bytes a line; a file of many more, shorter lines is
// not a trace, and decoding millions of them would take seconds.
const BytesPerLine = 64

// Read reads and validates a trace file of at most DefaultMaxInput bytes.
func Read(path string) (*File, error) { return ReadLimit(path, DefaultMaxInput) }

// ReadLimit reads and validates a trace file of at most limit bytes and
// limit/BytesPerLine lines, streaming it: memory grows with the events
// decoded, not the file's text. A regular file over either cap is
// refused before decoding starts: its size is known, and its lines are
// counted in one pass that stops at the cap (a few milliseconds a
// million lines), so a 10-million-line file fails at once.
func ReadLimit(path string, limit int64) (*File, error) {
	r, err := OpenInput(path, limit)
	if err != nil {
		return nil, fmt.Errorf("read trace: %w", err)
	}
	defer r.Close()
	r.maxLines = limit / BytesPerLine
	if f, ok := r.r.(*os.File); ok && r.regular {
		if _, err := countLines(f, r.maxLines); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("read trace: %w", err)
		}
	}
	f, err := Decode(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Input is an open input that fails with ErrTooLarge past its cap.
type Input struct {
	r     io.Reader
	c     io.Closer
	left  int64
	limit int64
	// maxLines, if positive, caps the newlines read; lines counts them.
	maxLines, lines int64
	regular         bool // a regular file, which can be read twice
}

// Capped reads r, failing with ErrTooLarge past limit bytes.
func Capped(r io.Reader, limit int64) *Input { return &Input{r: r, left: limit, limit: limit} }

// CappedLines reads r, failing with ErrTooLarge past limit bytes or
// maxLines lines, as the trace reader reads a stream.
func CappedLines(r io.Reader, limit, maxLines int64) *Input {
	in := Capped(r, limit)
	in.maxLines = maxLines
	return in
}

// errTooManyLines is the line cap's error.
func errTooManyLines(max int64) error {
	return fmt.Errorf("%w: more than %d lines, the limit of a trace file (one line per %d bytes of --max-input-mb, which raises it)", ErrTooLarge, max, BytesPerLine)
}

// countLines counts r's lines, failing as soon as there are more than
// max; it returns the bytes it read.
func countLines(r io.Reader, max int64) (int64, error) {
	buf := make([]byte, 256<<10)
	var lines, read int64
	for {
		n, err := r.Read(buf)
		read += int64(n)
		lines += int64(bytes.Count(buf[:n], []byte{'\n'}))
		if lines > max {
			return read, errTooManyLines(max)
		}
		if err == io.EOF {
			return read, nil
		}
		if err != nil {
			return read, err
		}
	}
}

// OpenInput opens path for reading at most limit bytes. A directory or
// socket is refused; a FIFO opens without waiting for a writer (with none
// it reads as empty).
func OpenInput(path string, limit int64) (*Input, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	flags := os.O_RDONLY
	switch m := st.Mode(); {
	case m.IsDir():
		return nil, fmt.Errorf("%s is a directory", path)
	case m&fs.ModeSocket != 0:
		return nil, fmt.Errorf("%s is a socket", path)
	case m&fs.ModeNamedPipe != 0:
		flags |= syscall.O_NONBLOCK
	}
	if st.Mode().IsRegular() && st.Size() > limit {
		return nil, fmt.Errorf("%w: %s is %d MB, larger than the %d MB limit (raise it with --max-input-mb)", ErrTooLarge, path, st.Size()>>20, limit>>20)
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		return nil, err
	}
	in := Capped(f, limit)
	in.c = f
	in.regular = st.Mode().IsRegular()
	return in, nil
}

func (in *Input) Read(p []byte) (int, error) {
	if in.left <= 0 {
		var one [1]byte
		if n, _ := io.ReadFull(in.r, one[:]); n > 0 {
			return 0, fmt.Errorf("%w: larger than the %d MB limit (raise it with --max-input-mb)", ErrTooLarge, in.limit>>20)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > in.left {
		p = p[:in.left]
	}
	n, err := in.r.Read(p)
	in.left -= int64(n)
	if in.maxLines > 0 {
		in.lines += int64(bytes.Count(p[:n], []byte{'\n'}))
		if in.lines > in.maxLines {
			return 0, errTooManyLines(in.maxLines)
		}
	}
	return n, err
}

// Close closes the file.
func (in *Input) Close() error {
	if in.c == nil {
		return nil
	}
	return in.c.Close()
}

// Parse decodes and validates a trace file's bytes.
func Parse(b []byte) (*File, error) { return Decode(bytes.NewReader(b)) }

// Decode reads one trace file from r, token by token, and validates it:
// its format, known fields only and each once, nothing after it, a valid
// scenario, and events that match its trace_sha256.
func Decode(r io.Reader) (*File, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	f, err := decodeFile(dec)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return nil, err
		}
		return nil, fmt.Errorf("not a locksim trace: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a valid locksim trace: data after the trace's closing brace")
	}
	if f.Format == 0 {
		return nil, errors.New("not a locksim trace: no format field")
	}
	if f.Trace == nil {
		return nil, errors.New("not a valid locksim trace: no trace section")
	}
	// The hash first: an edited scenario is refused before anything
	// (even Normalize, which draws faults) works on it.
	if err := CheckHash(f); err != nil {
		return nil, err
	}
	// A protocol or workload a Go test registered (locktest) is unknown
	// here: the recorded trace stands on its own (view, Recheck); only
	// that test re-runs it.
	if known(f.Scenario) {
		if _, err := f.Scenario.Normalize(); err != nil {
			return nil, fmt.Errorf("not a valid locksim trace: scenario: %v", err)
		}
	}
	return f, nil
}

func decodeFile(dec *json.Decoder) (*File, error) {
	f := &File{}
	err := object(dec, func(key string) error {
		switch key {
		case "format":
			if err := dec.Decode(&f.Format); err != nil {
				return err
			}
			switch {
			case f.Format > FormatVersion:
				return fmt.Errorf("trace format %d is newer than this locksim (reads %d): upgrade locksim", f.Format, FormatVersion)
			case f.Format < 1:
				return fmt.Errorf("trace format %d is not valid", f.Format)
			}
			return nil
		case "scenario":
			return dec.Decode(&f.Scenario)
		case "report":
			if err := dec.Decode(&f.Report); err != nil {
				return err
			}
			renameProperties(&f.Report)
			return nil
		case "trace_sha256":
			return dec.Decode(&f.TraceSHA256)
		case "trace":
			f.Trace = &trace.Trace{}
			return decodeTrace(dec, f.Trace)
		}
		return fmt.Errorf("unknown field %q", key)
	})
	return f, err
}

func decodeTrace(dec *json.Decoder, t *trace.Trace) error {
	return object(dec, func(key string) error {
		switch key {
		case "events":
			return list(dec, &t.Events)
		case "ops":
			return list(dec, &t.Ops)
		case "scripts":
			return dec.Decode(&t.Scripts)
		case "stats":
			return dec.Decode(&t.Stats)
		}
		return fmt.Errorf("unknown field trace.%s", key)
	})
}

// object reads a JSON object, calling field for each key with the decoder
// before its value; a key given twice is refused.
func object(dec *json.Decoder, field func(key string) error) error {
	if err := delim(dec, '{'); err != nil {
		return err
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if seen[key] {
			return fmt.Errorf("field %q given twice", key)
		}
		seen[key] = true
		if err := field(key); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	return delim(dec, '}')
}

// list reads a JSON array one element at a time into out.
func list[T any](dec *json.Decoder, out *[]T) error {
	if err := delim(dec, '['); err != nil {
		return err
	}
	for dec.More() {
		var v T
		if err := dec.Decode(&v); err != nil {
			return err
		}
		*out = append(*out, v)
	}
	return delim(dec, ']')
}

func delim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("want %q, found %v", want, tok)
	}
	return nil
}

// known reports a scenario whose protocol and workload this binary knows
// (or that names none, and so must validate as the default).
func known(sc protocols.Scenario) bool {
	if _, err := sc.LookupProtocol(); err != nil && sc.Protocol != "" {
		return false
	}
	if _, err := protocols.LookupWorkload(sc.Workload); err != nil && sc.Workload != "" {
		return false
	}
	return true
}

// renamedProperties maps the property names older files recorded to
// today's: the protected data's property was "resource" before it was
// "damage".
var renamedProperties = map[string]string{"resource": checker.PropDamage}

// renameProperties gives r's violations and checks today's property
// names, so that a file written before a rename still rechecks.
func renameProperties(r *checker.Report) {
	for i := range r.Violations {
		if p, ok := renamedProperties[r.Violations[i].Property]; ok {
			r.Violations[i].Property = p
		}
	}
	for i := range r.Checked {
		if p, ok := renamedProperties[r.Checked[i].Property]; ok {
			r.Checked[i].Property = p
		}
	}
}
