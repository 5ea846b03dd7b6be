package trace

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// trickyPieces are the strings encoding/json treats specially: HTML
// characters, quotes, control characters, the JavaScript line separators
// and their neighbours, and invalid or truncated UTF-8.
var trickyPieces = []string{
	"a", " ", "<", ">", "&", `"`, `\`, "/", "\x00", "\x01", "\x1f", "\b", "\f", "\n", "\r", "\t", "\x7f",
	"\u2028", "\u2029", "\u2027", "\u202a", "é", "\U0001F600", "\ufffd",
	"\xff", "\x80", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf",
}

// anyString draws strings of tricky pieces, arbitrary runes and
// arbitrary bytes; "" often, so that omitempty fields are left out.
func anyString() *rapid.Generator[string] {
	piece := rapid.OneOf(
		rapid.SampledFrom(trickyPieces),
		rapid.String(),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
	)
	return rapid.Map(rapid.SliceOfN(piece, 0, 5), func(ps []string) string { return strings.Join(ps, "") })
}

func anyArgs() *rapid.Generator[[]string] {
	return rapid.OneOf(rapid.Just([]string(nil)), rapid.Just([]string{}), rapid.SliceOfN(anyString(), 1, 4))
}

func anyInt64() *rapid.Generator[int64] {
	return rapid.OneOf(rapid.Just(int64(0)), rapid.Int64())
}

func anyEvent() *rapid.Generator[Event] {
	return rapid.Custom(func(t *rapid.T) Event {
		return Event{
			T: anyInt64().Draw(t, "t"), Kind: anyString().Draw(t, "kind"), Party: anyString().Draw(t, "party"),
			Client: anyString().Draw(t, "client"), Key: anyString().Draw(t, "key"), Args: anyArgs().Draw(t, "args"),
			Reply: anyString().Draw(t, "reply"), Change: anyString().Draw(t, "change"), Detail: anyString().Draw(t, "detail"),
			DurNs: anyInt64().Draw(t, "dur"), Fault: rapid.OneOf(rapid.Just(0), rapid.Int()).Draw(t, "fault"),
		}
	})
}

func anyOp() *rapid.Generator[Op] {
	return rapid.Custom(func(t *rapid.T) Op {
		return Op{
			ID: rapid.Int().Draw(t, "id"), Client: anyString().Draw(t, "client"), Process: anyString().Draw(t, "process"),
			Kind: anyString().Draw(t, "kind"), Key: anyString().Draw(t, "key"), Value: anyString().Draw(t, "value"),
			Result: anyString().Draw(t, "result"), Call: anyInt64().Draw(t, "call"), Return: anyInt64().Draw(t, "return"),
		}
	})
}

// sameAsMarshal fails t unless appendJSON, appending to a non-empty
// buffer, adds exactly the bytes json.Marshal gives for v.
func sameAsMarshal[T any](t *rapid.T, v *T, appendJSON func([]byte, *T) []byte) {
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	prefix := []byte("prefix")
	got := appendJSON(prefix[:len(prefix):len(prefix)], v)
	if !bytes.HasPrefix(got, prefix) || !bytes.Equal(got[len(prefix):], want) {
		t.Fatalf("appended %q\njson.Marshal %q", got, want)
	}
}

func TestAppendEventJSONIsMarshal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := anyEvent().Draw(t, "event")
		sameAsMarshal(t, &e, AppendEventJSON)
	})
}

func TestAppendOpJSONIsMarshal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := anyOp().Draw(t, "op")
		sameAsMarshal(t, &o, AppendOpJSON)
	})
}

// TestHashOfAnyTraceIsTheCanonicalJSON hashes drawn traces, scripts and
// stats included, both ways.
func TestHashOfAnyTraceIsTheCanonicalJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tr := &Trace{
			Events:  rapid.SliceOfN(anyEvent(), 0, 20).Draw(t, "events"),
			Ops:     rapid.SliceOfN(anyOp(), 0, 10).Draw(t, "ops"),
			Scripts: rapid.MapOfN(anyString(), anyString(), 0, 3).Draw(t, "scripts"),
			Stats: Stats{SimNs: anyInt64().Draw(t, "sim"), Events: rapid.Int().Draw(t, "n"),
				RedisCommands: rapid.Int().Draw(t, "cmds"), Budget: anyString().Draw(t, "budget")},
		}
		if got, want := tr.Hash(), wholeHash(tr); got != want {
			t.Fatalf("Hash %s, json.Marshal's %s", got, want)
		}
	})
}

// TestEveryByteAtEveryOffset puts each byte value at each offset of a
// plain string: every byte's escaping, at the start, middle and end.
func TestEveryByteAtEveryOffset(t *testing.T) {
	plain := []byte("abcdefghijklmnopq")
	for b := range 256 {
		for i := range plain {
			s := bytes.Clone(plain)
			s[i] = byte(b)
			want, err := json.Marshal(string(s))
			if err != nil {
				t.Fatal(err)
			}
			if got := appendJSONString(nil, string(s)); !bytes.Equal(got, want) {
				t.Fatalf("byte %#x at %d: appended %q, json.Marshal %q", b, i, got, want)
			}
		}
	}
}
