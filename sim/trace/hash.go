package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
)

// Hash is the SHA-256 of the trace's canonical JSON encoding: the bytes
// json.Marshal gives for the trace with nil events or ops as [], fed to
// the hash a slice of records at a time, so that a trace of millions of
// events is never held as one JSON buffer.
func (t *Trace) Hash() string {
	h := sha256.New()
	h.Write([]byte(`{"events":`))
	hashList(h, t.Events)
	h.Write([]byte(`,"ops":`))
	hashList(h, t.Ops)
	if len(t.Scripts) > 0 {
		h.Write([]byte(`,"scripts":`))
		h.Write(marshal(t.Scripts))
	}
	h.Write([]byte(`,"stats":`))
	h.Write(marshal(t.Stats))
	h.Write([]byte(`}`))
	return hex.EncodeToString(h.Sum(nil))
}

// hashChunk is how many records hashList marshals at once.
const hashChunk = 512

// hashList writes the JSON array of xs to h: each chunk's marshalled
// array without its brackets, joined by commas.
func hashList[T any](h hash.Hash, xs []T) {
	h.Write([]byte{'['})
	for i := 0; i < len(xs); i += hashChunk {
		if i > 0 {
			h.Write([]byte{','})
		}
		b := marshal(xs[i:min(i+hashChunk, len(xs))])
		h.Write(b[1 : len(b)-1])
	}
	h.Write([]byte{']'})
}

func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain structs of strings and ints always marshal
	}
	return b
}
