package recorded

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxLine is the longest line a history may have.
const MaxLine = 1 << 20

// jsonEvent is one JSON Lines event as written. Numbers stay json.Number
// so that times around 1e18 ns keep every digit; fields not listed here
// (an error text on fail or info) are ignored.
type jsonEvent struct {
	Process json.RawMessage `json:"process"`
	Type    *string         `json:"type"`
	F       *string         `json:"f"`
	Key     *string         `json:"key"`
	Value   json.RawMessage `json:"value"`
	LeaseMs json.RawMessage `json:"lease_ms"`
	Token   json.RawMessage `json:"token"`
	Time    json.RawMessage `json:"time"`
}

// ReadJSONL reads a history in JSON Lines: one object per line, blank
// lines skipped. Its first error names the line.
func ReadJSONL(r io.Reader) (*History, error) {
	return readLines(r, parseJSONLine, spoolInMemory)
}

// readLines splits r into lines, parses each non-blank one and pairs the
// events as they come, spooling the operations (up to spoolLimit bytes
// of them in memory).
func readLines(r io.Reader, parse func(line []byte, n int) (Event, bool, error), spoolLimit int) (*History, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	rd := newReader(spoolLimit)
	fail := func(err error) (*History, error) {
		rd.h.Close()
		return nil, err
	}
	// The key of each process's pending invoke: a completion must name
	// the same one (the reader pairs them by process and f).
	type invoked struct {
		key  string
		line int
	}
	pending := map[string]invoked{}
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if n == 1 {
			if bytes.HasPrefix(line, []byte{0xff, 0xfe}) || bytes.HasPrefix(line, []byte{0xfe, 0xff}) {
				return fail(errorf(n, "the file is UTF-16 text: save it as UTF-8"))
			}
			// A UTF-8 byte-order mark, as PowerShell and some Windows
			// tools write: not part of the first event.
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		e, keep, err := parse(line, n)
		if err != nil {
			return fail(err)
		}
		if !keep {
			continue
		}
		if err := rd.add(&e); err != nil {
			return fail(err)
		}
		if e.Type == TypeInvoke {
			pending[e.Process] = invoked{e.Key, e.Line}
			continue
		}
		if inv := pending[e.Process]; inv.key != e.Key {
			return fail(errorf(n, "%s %s of process %s names key %q, its invoke (line %d) key %q: a completion names its invoke's key", e.Type, e.F, e.Process, e.Key, inv.line, inv.key))
		}
		delete(pending, e.Process)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fail(errorf(n+1, "line longer than %d bytes", MaxLine))
		}
		return fail(errorf(n+1, "%v", err))
	}
	h, err := rd.end()
	if err != nil {
		return fail(err)
	}
	return h, nil
}

func parseJSONLine(line []byte, n int) (Event, bool, error) {
	var j jsonEvent
	// Numbers stay raw text (json.RawMessage): times are parsed as exact
	// integers below. Plain lines take the short way.
	if !decodeFlat(line, &j) {
		if looksEDN(line) {
			return Event{}, false, errorf(n, "not one JSON object but EDN (a Jepsen history.edn?): read it with --format edn")
		}
		if line[0] != '{' {
			return Event{}, false, errorf(n, "not a JSON object: each line is one event, {\"process\":...,\"type\":...,\"f\":...,\"key\":...,\"time\":...}")
		}
		if err := json.Unmarshal(line, &j); err != nil {
			var se *json.SyntaxError
			var te *json.UnmarshalTypeError
			switch {
			case errors.As(err, &se) && strings.Contains(se.Error(), "unexpected end"):
				return Event{}, false, errorf(n, "truncated line: the JSON object does not end")
			case errors.As(err, &te):
				return Event{}, false, errorf(n, "%s: a string is required, not %s", te.Field, jsonKind[te.Value])
			case errors.As(err, &se):
				return Event{}, false, errorf(n, "not one JSON object: %v", err)
			}
			return Event{}, false, errorf(n, "%v", err)
		}
		if f := repeatedField(line); f != "" {
			return Event{}, false, errorf(n, "field %q is given twice: each field once", f)
		}
	}
	e := Event{Line: n}
	var err error
	if e.Process, err = scalarText(j.Process); err != nil || e.Process == "" || j.Process[0] != '"' && strings.ContainsAny(e.Process, ".eE") {
		return Event{}, false, errorf(n, "process: a non-empty string or an integer is required")
	}
	e.ProcNum = j.Process[0] != '"'
	if j.Type == nil {
		return Event{}, false, errorf(n, "type is missing (invoke, ok, fail or info)")
	}
	if e.Type = *j.Type; !validType(e.Type) {
		return Event{}, false, errorf(n, "unknown type %q (invoke, ok, fail or info)", e.Type)
	}
	if j.F == nil {
		return Event{}, false, errorf(n, "f is missing (acquire, release, renew, read or write)")
	}
	if e.F = *j.F; !validF(e.F) {
		return Event{}, false, errorf(n, "unknown f %q (acquire, release, renew, read or write)", e.F)
	}
	if j.Key != nil {
		e.Key = *j.Key
	}
	if e.Key == "" {
		return Event{}, false, errorf(n, "key is missing")
	}
	if e.Value, err = scalarText(j.Value); err != nil {
		return Event{}, false, errorf(n, "value: %v", err)
	}
	e.Null = isNull(j.Value)
	if len(j.Time) == 0 {
		return Event{}, false, errorf(n, "time is missing (integer nanoseconds)")
	}
	if e.Time, err = integer(j.Time); err != nil {
		return Event{}, false, errorf(n, "time: %v", err)
	}
	if e.Time < 0 {
		return Event{}, false, errorf(n, "time: %d is negative: times are nanoseconds of one clock, 0 or more", e.Time)
	}
	if !isNull(j.LeaseMs) {
		if e.LeaseMs, err = integer(j.LeaseMs); err != nil || e.LeaseMs <= 0 || e.LeaseMs > MaxLeaseMs {
			return Event{}, false, errorf(n, "lease_ms: a positive integer up to %d (a year) is required", MaxLeaseMs)
		}
	}
	switch {
	case (e.F == FWrite || e.F == FAcquire) && len(j.Token) > 0:
		text, err := scalarText(j.Token)
		if err != nil || isNull(j.Token) {
			text = string(j.Token) // null, true, an object: shown as written
		}
		if e.Token, err = fencingToken(text, err == nil && !isNull(j.Token)); err != nil {
			return Event{}, false, errorf(n, "%v", err)
		}
	case !isNull(j.Token):
		if e.Token, err = scalarText(j.Token); err != nil {
			return Event{}, false, errorf(n, "token: %v", err)
		}
	}
	return e, true, nil
}

// fencingToken is a write's or an acquire's token as the checker
// compares it: a signed 64-bit integer, the range of Redis's INCR, in
// decimal without a sign or leading zeros. text is the token as written;
// scalar is false when it is no string or number (null, true, an
// object). A token that is no such integer (2.5, 1e30,
// 18446744073709551615, "abc", null) is refused: the checker could not
// order it, and would leave it out of the fence's order without a word.
func fencingToken(text string, scalar bool) (string, error) {
	const want = "a fencing token (of a write or an acquire) must be an integer from -9223372036854775808 to 9223372036854775807, as a number or a string of digits (leave the field out when there is none)"
	v, err := strconv.ParseInt(text, 10, 64)
	switch {
	case !scalar:
	case err == nil:
		return strconv.FormatInt(v, 10), nil
	case errors.Is(err, strconv.ErrRange):
		return "", fmt.Errorf("token %s is out of range: %s", text, want)
	}
	if text == "" {
		text = `""`
	}
	return "", fmt.Errorf("token %s is not an integer: %s", text, want)
}
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// scalarText renders a string or number as text ("" for null or absent).
func scalarText(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	switch raw[0] {
	case '"':
		if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
			return string(inner), nil // no escapes to undo
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return s, nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return string(raw), nil
	}
	return "", errors.New("a string, a number or null is required")
}

// integer reads a JSON number that must be an int64, exactly.
func integer(raw json.RawMessage) (int64, error) {
	s := string(raw)
	if strings.ContainsAny(s, ".eE") {
		return 0, errors.New(s + " is not an integer")
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, errors.New(s + " is not a 64-bit integer")
	}
	return v, nil
}

// jsonKind names the kinds of JSON value json.UnmarshalTypeError gives.
var jsonKind = map[string]string{"number": "a number", "bool": "true or false", "array": "an array", "object": "an object", "string": "a string"}

// looksEDN reports whether line is an EDN map, as a Jepsen history.edn
// holds ({:index 0, ...}, maybe tagged or opening a vector): never JSON.
func looksEDN(line []byte) bool {
	line = bytes.TrimLeft(line, "[ \t")
	return bytes.HasPrefix(line, []byte("{:")) || bytes.HasPrefix(line, []byte("#"))
}

// repeatedField is the name of an event's field that line, one JSON
// object, gives twice (as json.Unmarshal matches names: regardless of
// case), or "": json.Unmarshal would keep the last silently.
func repeatedField(line []byte) string {
	dec := json.NewDecoder(bytes.NewReader(line))
	if _, err := dec.Token(); err != nil {
		return ""
	}
	var seen [len(flatFields)]bool
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return ""
		}
		key, _ := k.(string)
		for i, name := range flatFields {
			if strings.EqualFold(key, name) {
				if seen[i] {
					return name
				}
				seen[i] = true
			}
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return ""
		}
	}
	return ""
}
