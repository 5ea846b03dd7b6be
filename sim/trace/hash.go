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

// hashList writes the JSON array of xs to h: each chunk's encoded array
// without its brackets, joined by commas. The encoder writes into the
// hash straight from its pooled buffer: json.Marshal would copy each
// chunk out of it first.
func hashList[T any](h hash.Hash, xs []T) {
	h.Write([]byte{'['})
	enc := json.NewEncoder(unbracketed{h})
	for i := 0; i < len(xs); i += hashChunk {
		if i > 0 {
			h.Write([]byte{','})
		}
		if err := enc.Encode(xs[i:min(i+hashChunk, len(xs))]); err != nil {
			panic(err) // plain structs of strings and ints always encode
		}
	}
	h.Write([]byte{']'})
}

// unbracketed takes one encoded array per Write, as json.Encoder.Encode
// writes it ("[...]" and a newline), and passes on its elements.
type unbracketed struct{ h hash.Hash }

func (u unbracketed) Write(b []byte) (int, error) {
	if len(b) < 3 || b[0] != '[' || b[len(b)-2] != ']' || b[len(b)-1] != '\n' {
		panic("trace: json.Encoder wrote a partial array")
	}
	u.h.Write(b[1 : len(b)-2])
	return len(b), nil
}

func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain structs of strings and ints always marshal
	}
	return b
}
