package trace

import (
	"strconv"
	"unicode/utf8"
)

// AppendEventJSON appends e encoded as JSON to dst: the bytes
// json.Marshal gives for e (field order, omitempty, escaping), without its
// reflection. The trace hash and the trace file are made of these bytes.
func AppendEventJSON(dst []byte, e *Event) []byte {
	dst = appendIntField(dst, `{"t":`, e.T)
	dst = appendStringField(dst, `,"kind":`, e.Kind)
	dst = appendStringField(dst, `,"party":`, e.Party)
	dst = appendNonEmptyField(dst, `,"client":`, e.Client)
	dst = appendNonEmptyField(dst, `,"key":`, e.Key)
	if len(e.Args) > 0 {
		dst = append(dst, `,"args":[`...)
		for i, a := range e.Args {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, a)
		}
		dst = append(dst, ']')
	}
	dst = appendNonEmptyField(dst, `,"reply":`, e.Reply)
	dst = appendNonEmptyField(dst, `,"change":`, e.Change)
	dst = appendNonEmptyField(dst, `,"detail":`, e.Detail)
	dst = appendNonZeroField(dst, `,"dur_ns":`, e.DurNs)
	dst = appendNonZeroField(dst, `,"fault":`, int64(e.Fault))
	return append(dst, '}')
}

// AppendOpJSON appends o encoded as JSON to dst: the bytes json.Marshal
// gives for o.
func AppendOpJSON(dst []byte, o *Op) []byte {
	dst = appendIntField(dst, `{"id":`, int64(o.ID))
	dst = appendStringField(dst, `,"client":`, o.Client)
	dst = appendStringField(dst, `,"process":`, o.Process)
	dst = appendStringField(dst, `,"kind":`, o.Kind)
	dst = appendStringField(dst, `,"key":`, o.Key)
	dst = appendNonEmptyField(dst, `,"value":`, o.Value)
	dst = appendNonEmptyField(dst, `,"result":`, o.Result)
	dst = appendIntField(dst, `,"call":`, o.Call)
	dst = appendIntField(dst, `,"return":`, o.Return)
	return append(dst, '}')
}

func appendIntField(dst []byte, name string, v int64) []byte {
	return strconv.AppendInt(append(dst, name...), v, 10)
}

// appendNonZeroField appends an int field tagged omitempty.
func appendNonZeroField(dst []byte, name string, v int64) []byte {
	if v == 0 {
		return dst
	}
	return appendIntField(dst, name, v)
}

func appendStringField(dst []byte, name, s string) []byte {
	return appendJSONString(append(dst, name...), s)
}

// appendNonEmptyField appends a string field tagged omitempty.
func appendNonEmptyField(dst []byte, name, s string) []byte {
	if s == "" {
		return dst
	}
	return appendStringField(dst, name, s)
}

// appendJSONString appends s as encoding/json writes a string with HTML
// escaping on (its default): quotes, backslashes, control characters,
// < > & and U+2028/U+2029 escaped, each byte of invalid UTF-8 as \ufffd.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if jsonSafe[b] {
			i++
			continue
		}
		if b < utf8.RuneSelf {
			dst = appendEscapedByte(append(dst, s[start:i]...), b)
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}

// appendEscapedByte escapes an ASCII byte jsonSafe refuses.
func appendEscapedByte(dst []byte, b byte) []byte {
	switch b {
	case '\\', '"':
		return append(dst, '\\', b)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
}

const hexDigits = "0123456789abcdef"

// jsonSafe holds the bytes encoding/json writes as they are inside a
// string: ASCII but control characters, '"', '\\', '<', '>' and '&'.
// Bytes of multi-byte UTF-8 are not in it: they need decoding.
var jsonSafe = func() (safe [256]bool) {
	for b := ' '; b < utf8.RuneSelf; b++ {
		safe[b] = true
	}
	for _, b := range `"\<>&` {
		safe[b] = false
	}
	return safe
}()
