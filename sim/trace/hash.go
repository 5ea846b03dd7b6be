package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Hash is the SHA-256 of the trace's canonical JSON encoding: the bytes
// json.Marshal gives for the trace with nil events or ops as [], fed to
// the hash through one buffer, so that a trace of millions of events is
// never held as one JSON buffer.
func (t *Trace) Hash() string {
	h := sha256.New()
	flush := func(b []byte) []byte {
		h.Write(b)
		return b[:0]
	}
	buf := make([]byte, 0, hashFlush+hashSlack)
	buf = append(buf, `{"events":`...)
	buf = hashList(flush, buf, t.Events, AppendEventJSON)
	buf = append(buf, `,"ops":`...)
	buf = hashList(flush, buf, t.Ops, AppendOpJSON)
	if len(t.Scripts) > 0 {
		buf = append(append(buf, `,"scripts":`...), marshal(t.Scripts)...)
	}
	buf = append(append(buf, `,"stats":`...), marshal(t.Stats)...)
	flush(append(buf, '}'))
	return hex.EncodeToString(h.Sum(nil))
}

// A flush writes a full buffer into the hash and returns an empty one.
type flushFunc func([]byte) []byte

// hashFlush is how full Hash lets its buffer get before writing it into
// the hash; hashSlack is room for the record that crosses it.
const (
	hashFlush = 32 << 10
	hashSlack = 4 << 10
)

// hashList appends the JSON array of xs to buf, flushing buf whenever it
// passes hashFlush, and returns what is left of it.
func hashList[T any](flush flushFunc, buf []byte, xs []T, appendJSON func([]byte, *T) []byte) []byte {
	buf = append(buf, '[')
	for i := range xs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSON(buf, &xs[i])
		if len(buf) >= hashFlush {
			buf = flush(buf)
		}
	}
	return append(buf, ']')
}

func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain structs of strings and ints always marshal
	}
	return b
}
