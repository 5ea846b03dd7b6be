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

// append appends o's record to b: its length, then f and result in one
// byte, varints and length-prefixed strings.
func (o *op) append(b []byte) []byte {
	var body [64]byte
	r := append(body[:0], code(o.f, fCodes)|code(o.result, typeCodes)<<4)
	r = binary.AppendUvarint(r, uint64(o.proc))
	r = binary.AppendUvarint(r, uint64(o.key))
	r = binary.AppendVarint(r, o.call)
	r = binary.AppendUvarint(r, uint64(o.invLine))
	if o.done() {
		r = binary.AppendUvarint(r, uint64(o.ret-o.call)) // time never goes backwards within a process
		r = binary.AppendUvarint(r, uint64(o.doneLine-o.invLine))
	}
	r = binary.AppendUvarint(r, uint64(o.lease))
	r = binary.AppendUvarint(r, uint64(len(o.value)))
	n := len(r) + len(o.value) + uvarintLen(uint64(len(o.token))) + len(o.token)
	b = binary.AppendUvarint(b, uint64(n))
	b = append(b, r...)
	b = append(b, o.value...)
	b = binary.AppendUvarint(b, uint64(len(o.token)))
	return append(b, o.token...)
}

func uvarintLen(v uint64) int {
	var b [binary.MaxVarintLen64]byte
	return len(binary.AppendUvarint(b[:0], v))
}

var errRecord = errors.New("recorded: damaged operation record")

// recordKey is the key's node of the record body b.
func recordKey(b []byte) (int32, error) {
	if len(b) == 0 {
		return 0, errRecord
	}
	_, n := binary.Uvarint(b[1:])
	if n <= 0 {
		return 0, errRecord
	}
	k, m := binary.Uvarint(b[1+n:])
	if m <= 0 {
		return 0, errRecord
	}
	return int32(k), nil
}

// decode reads the record body b into o.
func (o *op) decode(b []byte) error {
	if len(b) == 0 || int(b[0]&15) >= len(fCodes) || int(b[0]>>4) >= len(typeCodes) {
		return errRecord
	}
	*o = op{f: fCodes[b[0]&15], result: typeCodes[b[0]>>4]}
	b = b[1:]
	bad := false
	u := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			bad = true
			return 0
		}
		b = b[n:]
		return v
	}
	str := func() string {
		n := u()
		if bad || n > uint64(len(b)) {
			bad = true
			return ""
		}
		s := string(b[:n])
		b = b[n:]
		return s
	}
	o.proc, o.key = int32(u()), int32(u())
	call, n := binary.Varint(b)
	if n <= 0 {
		return errRecord
	}
	o.call, b = call, b[n:]
	o.invLine = int(u())
	if o.done() {
		o.ret = o.call + int64(u())
		o.doneLine = o.invLine + int(u())
	}
	o.lease = int64(u())
	o.value = str()
	o.token = str()
	if bad {
		return errRecord
	}
	return nil
}

// recordReader reads the records of a spool.
type recordReader struct {
	r   *bufio.Reader
	big []byte
}

// next is the body of the next record, valid until the next call; io.EOF
// at the end.
func (rr *recordReader) next() ([]byte, error) {
	hdr, _ := rr.r.Peek(binary.MaxVarintLen64) // fewer at the end
	if len(hdr) == 0 {
		return nil, io.EOF
	}
	n, k := binary.Uvarint(hdr)
	if k <= 0 || n > 4*MaxLine {
		return nil, errRecord
	}
	total := k + int(n)
	if total <= rr.r.Size() {
		b, err := rr.r.Peek(total)
		if err != nil {
			return nil, errRecord
		}
		rr.r.Discard(total)
		return b[k:], nil
	}
	rr.r.Discard(k)
	rr.big = append(rr.big[:0], make([]byte, n)...)
	if _, err := io.ReadFull(rr.r, rr.big); err != nil {
		return nil, errRecord
	}
	return rr.big, nil
}

// spoolInMemory is the most a spool keeps in memory before it moves its
// records to a temporary file.
const spoolInMemory = 1 << 20

// spool holds the operation records in the order they were written: in
// memory up to spoolInMemory bytes, beyond that in a temporary file that
// close removes.
type spool struct {
	limit int // spoolInMemory, but for tests
	mem   bytes.Buffer
	file  *os.File
	w     *bufio.Writer
}

func (s *spool) write(rec []byte) error {
	if s.file == nil && s.mem.Len()+len(rec) > s.limit {
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
	var r io.Reader = bytes.NewReader(s.mem.Bytes())
	if s.file != nil {
		if _, err := s.file.Seek(0, io.SeekStart); err != nil {
			return err
		}
		r = s.file
	}
	rr := &recordReader{r: bufio.NewReaderSize(r, 1<<16)}
	var o op
	for {
		b, err := rr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		key, err := recordKey(b)
		if err != nil {
			return err
		}
		if !keep(key) {
			continue
		}
		if err := o.decode(b); err != nil {
			return err
		}
		fn(&o)
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
