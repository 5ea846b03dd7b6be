package sim

import (
	"encoding/binary"
	"unsafe"

	"github.com/locksim/locksim/sim/trace"
)

// eventStream packs a long run's later events as the recorder keeps them
// during the run: bytes in pointer-free chunks, which the collector never
// scans. An event is varints: its time less the previous event's, its
// kind, a mask of its other fields that are not empty, and those fields:
// strings as numbers in the run's stringTable (a run's events repeat a
// few thousand distinct strings), the argument list as a reference into
// argLists, the duration and the fault. A long run's events are most of
// its memory.
type eventStream struct {
	n     int   // events packed
	last  int64 // time of the last event packed
	kinds stringTable
	strs  stringTable
	args  argLists
}

// Chunk sizes: a short stream's first chunk is small, later ones double
// up to maxChunk. An event never spans two chunks.
const (
	minChunk       = 1 << 10
	maxChunk       = 64 << 10
	maxPackedEvent = 11 * binary.MaxVarintLen64
)

// nextChunk returns a chunk to follow one of capacity prev (0: none).
func nextChunk(prev int) []byte {
	return make([]byte, 0, min(max(2*prev, minChunk), maxChunk))
}

// The mask's bits past the strings (bit i is the i-th of packedStrings).
const (
	hasArgs = 1 << (6 + iota)
	hasDur
	hasFault
)

// packedStrings are e's strings as the stream numbers them, kind apart.
func packedStrings(e *trace.Event) [6]*string {
	return [...]*string{&e.Party, &e.Client, &e.Key, &e.Reply, &e.Change, &e.Detail}
}

// add appends e to c, which has room for maxPackedEvent bytes.
func (s *eventStream) add(c []byte, e trace.Event) []byte {
	strs := packedStrings(&e)
	mask := uint64(0)
	for i, v := range strs {
		if *v != "" {
			mask |= 1 << i
		}
	}
	mask |= flag(e.Args != nil, hasArgs) | flag(e.DurNs != 0, hasDur) | flag(e.Fault != 0, hasFault)
	c = binary.AppendVarint(c, e.T-s.last)
	c = binary.AppendUvarint(c, uint64(s.kinds.id(e.Kind)))
	c = binary.AppendUvarint(c, mask)
	for i, v := range strs {
		if mask&(1<<i) != 0 {
			c = binary.AppendUvarint(c, uint64(s.strs.id(*v)))
		}
	}
	if mask&hasArgs != 0 {
		c = binary.AppendUvarint(c, s.args.ref(e.Args))
	}
	if mask&hasDur != 0 {
		c = binary.AppendVarint(c, e.DurNs)
	}
	if mask&hasFault != 0 {
		c = binary.AppendVarint(c, int64(e.Fault))
	}
	s.last = e.T
	s.n++
	return c
}

func flag(set bool, bit uint64) uint64 {
	if set {
		return bit
	}
	return 0
}

// reader returns a reader of the stream's chunks, to be given all of
// them in order.
func (s *eventStream) reader() *streamReader {
	return &streamReader{kinds: s.kinds.all(), strs: s.strs.all(), args: argReader{lists: s.args.lists}}
}

// streamReader reads what eventStream.add wrote.
type streamReader struct {
	b           []byte
	i           int
	t           int64
	kinds, strs []string
	args        argReader
}

// chunk appends the events packed in c to out.
func (r *streamReader) chunk(out []trace.Event, c []byte) []trace.Event {
	r.b, r.i = c, 0
	for r.i < len(r.b) {
		out = append(out, r.event())
	}
	return out
}

func (r *streamReader) event() trace.Event {
	r.t += r.varint()
	e := trace.Event{T: r.t, Kind: r.kinds[r.uvarint()]}
	mask := r.uvarint()
	for i, v := range packedStrings(&e) {
		if mask&(1<<i) != 0 {
			*v = r.strs[r.uvarint()]
		}
	}
	if mask&hasArgs != 0 {
		e.Args = r.args.at(r.uvarint())
	}
	if mask&hasDur != 0 {
		e.DurNs = r.varint()
	}
	if mask&hasFault != 0 {
		e.Fault = int(r.varint())
	}
	return e
}

func (r *streamReader) uvarint() uint64 {
	if b := r.b[r.i]; b < 0x80 { // most numbers take one byte
		r.i++
		return uint64(b)
	}
	v, n := binary.Uvarint(r.b[r.i:])
	r.i += n
	return v
}

// varint undoes binary.AppendVarint's zigzag.
func (r *streamReader) varint() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// argLists numbers argument lists in the order they are first met. The
// same slice (backing array and length: traceArgs shares one for a
// repeated command) gets one number, so each list is held once. Its key
// is an address, which stays valid because lists holds the slice.
type argLists struct {
	lists [][]string
	ids   map[argKey]int
}

type argKey struct {
	data uintptr
	n    int
}

// ref is how the stream refers to v: 0 for a list met for the first
// time, else how many lists back it was first met (a repeated command
// usually repeats a recent one: a small number).
func (a *argLists) ref(v []string) uint64 {
	k := argKey{uintptr(unsafe.Pointer(unsafe.SliceData(v))), len(v)}
	if id, ok := a.ids[k]; ok {
		return uint64(len(a.lists) - id)
	}
	if a.ids == nil {
		a.ids = map[argKey]int{}
	}
	a.ids[k] = len(a.lists)
	a.lists = append(a.lists, v)
	return 0
}

// argReader turns the stream's references back into argument lists.
type argReader struct {
	lists [][]string
	n     int // lists met so far
}

func (a *argReader) at(ref uint64) []string {
	if ref == 0 {
		a.n++
		return a.lists[a.n-1]
	}
	return a.lists[a.n-int(ref)]
}

// stringTable numbers distinct strings; 0 is "".
type stringTable struct {
	strs []string
	ids  map[string]uint32
}

func (s *stringTable) id(v string) uint32 {
	if v == "" {
		return 0
	}
	if id, ok := s.ids[v]; ok {
		return id
	}
	if s.ids == nil {
		s.ids, s.strs = map[string]uint32{}, []string{""}
	}
	id := uint32(len(s.strs))
	s.strs = append(s.strs, v)
	s.ids[v] = id
	return id
}

// all is every string numbered, by number.
func (s *stringTable) all() []string {
	if s.strs == nil {
		return []string{""}
	}
	return s.strs
}
