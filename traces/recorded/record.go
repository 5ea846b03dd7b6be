package recorded

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
)

// op is one operation: an invoke and its completion, if it came.
type op struct {
	f        string // FAcquire, ...
	result   string // the completion's type; "" when none came
	proc     int32  // node of the process
	key      int32  // node of the key
	call     int64  // the invoke's time, ns
	ret      int64  // the completion's
	invLine  int
	doneLine int
	lease    int64 // ms: the completion's lease_ms, else the invoke's; 0 none
	// value is the invoke's value, or the completion's when it has one
	// (the token an acquire made; what a read saw, "nil" for null),
	// except on a write: the value written.
	value string
	token string // a write's fencing token as written
}

// done reports a completion.
func (o *op) done() bool { return o.result != "" }

var (
	fCodes    = []string{FAcquire, FRelease, FRenew, FRead, FWrite}
	typeCodes = []string{"", TypeOK, TypeFail, TypeInfo}
)

func code(s string, codes []string) byte {
	for i, c := range codes {
		if c == s {
			return byte(i)
		}
	}
	panic("recorded: no code for " + s)
}

// append appends o's record to b: f and result in one byte, then
// varints and length-prefixed strings.
func (o *op) append(b []byte) []byte {
	b = append(b, code(o.f, fCodes)|code(o.result, typeCodes)<<4)
	b = binary.AppendUvarint(b, uint64(o.proc))
	b = binary.AppendUvarint(b, uint64(o.key))
	b = binary.AppendVarint(b, o.call)
	b = binary.AppendUvarint(b, uint64(o.invLine))
	if o.done() {
		b = binary.AppendUvarint(b, uint64(o.ret-o.call)) // time never goes backwards within a process
		b = binary.AppendUvarint(b, uint64(o.doneLine-o.invLine))
	}
	b = binary.AppendUvarint(b, uint64(o.lease))
	b = binary.AppendUvarint(b, uint64(len(o.value)))
	b = append(b, o.value...)
	b = binary.AppendUvarint(b, uint64(len(o.token)))
	return append(b, o.token...)
}

var errRecord = errors.New("recorded: damaged operation record")

// read reads one record into o; io.EOF at the end. A record whose key
// keep refuses is skipped, its strings unread (o.key says which it was).
func (o *op) read(r *bufio.Reader, keep func(key int32) bool) error {
	c, err := r.ReadByte()
	if err != nil {
		return err
	}
	if int(c&15) >= len(fCodes) || int(c>>4) >= len(typeCodes) {
		return errRecord
	}
	*o = op{f: fCodes[c&15], result: typeCodes[c>>4]}
	var errs [8]error
	u := func(i int) uint64 {
		v, err := binary.ReadUvarint(r)
		errs[i] = err
		return v
	}
	o.proc, o.key = int32(u(0)), int32(u(1))
	o.call, errs[2] = binary.ReadVarint(r)
	o.invLine = int(u(3))
	if o.done() {
		o.ret = o.call + int64(u(4))
		o.doneLine = o.invLine + int(u(5))
	}
	o.lease = int64(u(6))
	for _, err := range errs {
		if err != nil {
			return errRecord
		}
	}
	skip := !keep(o.key)
	if o.value, err = readString(r, skip); err != nil {
		return err
	}
	if o.token, err = readString(r, skip); err != nil {
		return err
	}
	return nil
}

func readString(r *bufio.Reader, skip bool) (string, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil || n > MaxLine {
		return "", errRecord
	}
	if n == 0 {
		return "", nil
	}
	if skip {
		if _, err := r.Discard(int(n)); err != nil {
			return "", errRecord
		}
		return "", nil
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", errRecord
	}
	return string(b), nil
}

// spoolInMemory is the most a spool keeps in memory before it moves its
// records to a temporary file.
const spoolInMemory = 8 << 20

// spool holds the operation records in the order they were written: in
// memory up to spoolInMemory bytes, beyond that in a temporary file that
// close removes.
type spool struct {
	mem  bytes.Buffer
	file *os.File
	w    *bufio.Writer
}

func (s *spool) write(rec []byte) error {
	if s.file == nil && s.mem.Len()+len(rec) > spoolInMemory {
		f, err := os.CreateTemp("", "locksim-history-*.ops")
		if err != nil {
			// No room for a file: keep the records in memory.
			s.mem.Write(rec)
			return nil
		}
		s.file, s.w = f, bufio.NewWriterSize(f, 1<<16)
		if _, err := s.w.Write(s.mem.Bytes()); err != nil {
			return s.fail(err)
		}
		s.mem = bytes.Buffer{}
	}
	if s.file == nil {
		s.mem.Write(rec)
		return nil
	}
	if _, err := s.w.Write(rec); err != nil {
		return s.fail(err)
	}
	return nil
}

// finish ends the writing.
func (s *spool) finish() error {
	if s.file != nil {
		if err := s.w.Flush(); err != nil {
			return s.fail(err)
		}
	}
	return nil
}

func (s *spool) fail(err error) error {
	s.close()
	return &Error{Msg: "spooling the operations to a temporary file: " + err.Error()}
}

// each calls fn with every record whose key keep accepts, in the order
// written.
func (s *spool) each(keep func(key int32) bool, fn func(o *op)) error {
	var r *bufio.Reader
	if s.file != nil {
		if _, err := s.file.Seek(0, io.SeekStart); err != nil {
			return err
		}
		r = bufio.NewReaderSize(s.file, 1<<16)
	} else {
		r = bufio.NewReader(bytes.NewReader(s.mem.Bytes()))
	}
	var o op
	for {
		switch err := o.read(r, keep); err {
		case nil:
			if keep(o.key) {
				fn(&o)
			}
		case io.EOF:
			return nil
		default:
			return err
		}
	}
}

func (s *spool) close() error {
	if s == nil || s.file == nil {
		return nil
	}
	name := s.file.Name()
	err := s.file.Close()
	s.file, s.w = nil, nil
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	return err
}
