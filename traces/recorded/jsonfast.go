package recorded

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// decodeFlat fills j from line when line is the plain case a recorder
// writes: one flat object whose keys are plain ASCII and whose values
// are strings without escapes, numbers, true, false or null, each known
// field once. It reports false, j untouched, for anything else
// (escapes, nested values, odd spellings of a field's name, duplicates,
// bad syntax), which json.Unmarshal then reads, or rejects with its
// error: whatever decodeFlat accepts, json.Unmarshal reads the same
// (FuzzDecodeFlat).
func decodeFlat(line []byte, j *jsonEvent) bool {
	var out jsonEvent
	var seen [8]bool
	i := skipWS(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	i = skipWS(line, i+1)
	if i < len(line) && line[i] == '}' {
		i++
	} else {
		for {
			ks, ke, ok := plainString(line, i)
			if !ok {
				return false
			}
			key := line[ks+1 : ke-1]
			i = skipWS(line, ke)
			if i >= len(line) || line[i] != ':' {
				return false
			}
			vs := skipWS(line, i+1)
			ve, kind := plainValue(line, vs)
			if kind == 0 {
				return false
			}
			if !out.set(key, line[vs:ve], kind, &seen) {
				return false
			}
			i = skipWS(line, ve)
			if i >= len(line) {
				return false
			}
			if line[i] == '}' {
				i++
				break
			}
			if line[i] != ',' {
				return false
			}
			i = skipWS(line, i+1)
		}
	}
	if skipWS(line, i) != len(line) {
		return false
	}
	*j = out
	return true
}

// Kinds of plain values.
const (
	plainStr = 1 + iota
	plainNum
	plainNull
	plainBool
)

var flatFields = [...]string{"process", "type", "f", "key", "value", "lease_ms", "token", "time"}

// set sets the field named key to the value raw of kind; false when the
// name only resembles a field's (json.Unmarshal matches names without
// regard to case), a field comes twice, or a string field's value is not
// a string or null.
func (j *jsonEvent) set(key, raw []byte, kind int, seen *[8]bool) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return false // json.Unmarshal folds some non-ASCII letters into ASCII ones
		}
	}
	for n, name := range flatFields {
		if string(key) == name {
			if seen[n] {
				return false
			}
			seen[n] = true
			return j.setField(n, raw, kind)
		}
		if bytes.EqualFold(key, []byte(name)) {
			return false
		}
	}
	return true // not a field of an event: ignored
}

func (j *jsonEvent) setField(n int, raw []byte, kind int) bool {
	str := func(p **string) bool {
		switch kind {
		case plainNull:
			*p = nil
			return true
		case plainStr:
			s := string(raw[1 : len(raw)-1])
			*p = &s
			return true
		}
		return false
	}
	switch n {
	case 0:
		j.Process = json.RawMessage(raw)
	case 1:
		return str(&j.Type)
	case 2:
		return str(&j.F)
	case 3:
		return str(&j.Key)
	case 4:
		j.Value = json.RawMessage(raw)
	case 5:
		j.LeaseMs = json.RawMessage(raw)
	case 6:
		j.Token = json.RawMessage(raw)
	case 7:
		j.Time = json.RawMessage(raw)
	}
	return true
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// plainString finds the string starting at b[i]: its start and end
// (past the closing quote); false unless it is a string of valid UTF-8
// without escapes or control characters.
func plainString(b []byte, i int) (int, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, 0, false
	}
	ascii := true
	for k := i + 1; k < len(b); k++ {
		switch c := b[k]; {
		case c == '"':
			if !ascii && !utf8.Valid(b[i+1:k]) {
				return 0, 0, false // json.Unmarshal would replace the bad bytes
			}
			return i, k + 1, true
		case c == '\\' || c < 0x20:
			return 0, 0, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return 0, 0, false
}

// plainValue finds the plain value starting at b[i]: its end and kind,
// 0 when it is none.
func plainValue(b []byte, i int) (int, int) {
	if i >= len(b) {
		return 0, 0
	}
	switch c := b[i]; {
	case c == '"':
		if _, e, ok := plainString(b, i); ok {
			return e, plainStr
		}
	case c == '-' || c >= '0' && c <= '9':
		if e := numberEnd(b, i); e > 0 {
			return e, plainNum
		}
	case bytes.HasPrefix(b[i:], []byte("null")):
		return literalEnd(b, i+4, plainNull)
	case bytes.HasPrefix(b[i:], []byte("true")):
		return literalEnd(b, i+4, plainBool)
	case bytes.HasPrefix(b[i:], []byte("false")):
		return literalEnd(b, i+5, plainBool)
	}
	return 0, 0
}

// literalEnd is a literal ending at e, if what follows can end a value.
func literalEnd(b []byte, e, kind int) (int, int) {
	if e < len(b) && !endsValue(b[e]) {
		return 0, 0
	}
	return e, kind
}

func endsValue(c byte) bool {
	return c == ',' || c == '}' || c == ' ' || c == '\t' || c == '\r' || c == '\n'
}

// numberEnd is the end of the JSON number starting at b[i], 0 if there
// is none: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func numberEnd(b []byte, i int) int {
	digits := func(i int) int {
		k := i
		for k < len(b) && b[k] >= '0' && b[k] <= '9' {
			k++
		}
		return k
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(i)
	default:
		return 0
	}
	if i < len(b) && b[i] == '.' {
		k := digits(i + 1)
		if k == i+1 {
			return 0
		}
		i = k
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		k := digits(i)
		if k == i {
			return 0
		}
		i = k
	}
	if i < len(b) && !endsValue(b[i]) {
		return 0
	}
	return i
}
