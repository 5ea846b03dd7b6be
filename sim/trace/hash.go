package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
)

// Hash is the SHA-256 of the trace's canonical JSON encoding: the bytes
// json.Marshal gives for the trace with nil events or ops as [], fed to
// the hash through one buffer, so that a trace of millions of events is
// never held as one JSON buffer.
func (t *Trace) Hash() string {
	h := sha256.New()
	buf := make([]byte, 0, hashFlush+hashSlack)
	buf = append(buf, `{"events":`...)
	buf = hashList(h, buf, t.Events, AppendEventJSON)
	buf = append(buf, `,"ops":`...)
	buf = hashList(h, buf, t.Ops, AppendOpJSON)
	if len(t.Scripts) > 0 {
		buf = append(append(buf, `,"scripts":`...), marshal(t.Scripts)...)
	}
	buf = append(append(buf, `,"stats":`...), marshal(t.Stats)...)
	h.Write(append(buf, '}'))
	return hex.EncodeToString(h.Sum(nil))
}

// hashFlush is how full Hash lets its buffer get before writing it into
// the hash; hashSlack is room for the record that crosses it.
const (
	hashFlush = 32 << 10
	hashSlack = 4 << 10
)

// hashList appends the JSON array of xs to buf, writing buf into h
// whenever it passes hashFlush, and returns what is left of it.
func hashList[T any](h hash.Hash, buf []byte, xs []T, appendJSON func([]byte, *T) []byte) []byte {
	buf = append(buf, '[')
	for i := range xs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSON(buf, &xs[i])
		if len(buf) >= hashFlush {
			h.Write(buf)
			buf = buf[:0]
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
