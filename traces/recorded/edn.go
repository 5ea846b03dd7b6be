package recorded

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Jepsen's history.edn: one EDN map per line, as Jepsen writes it:
//
//	{:index 0, :time 7262831, :type :invoke, :process 0, :f :acquire, :value nil}
//
// Lock tests use :f :acquire and :release on one mutex; :key names it
// when present (else "lock"), :lease-ms makes the check lease-aware.
// Events of the nemesis (a keyword :process) are left out; a map may
// carry a tag (#jepsen.history.Op{...}) and the file may be one vector
// of maps (its brackets on lines of their own or around the maps).

// DefaultEDNKey is the lock key of an EDN history whose events name none.
const DefaultEDNKey = "lock"

// ReadEDN reads a Jepsen history.edn of a lock test.
func ReadEDN(r io.Reader) (*History, error) {
	var v ednVector
	h, err := readLines(r, v.parseLine, spoolInMemory)
	if err == nil && v.open > 0 && !v.closed {
		h.Close()
		return nil, errorf(v.open, "truncated history: the vector '[' opened on this line is never closed by ']'")
	}
	return h, err
}

// ednVector follows the one vector that may hold the whole history: the
// line its '[' opens on, and whether its ']' came.
type ednVector struct {
	open   int
	closed bool
}

// parseLine reads line n, the brackets of the history's vector apart.
func (v *ednVector) parseLine(line []byte, n int) (Event, bool, error) {
	s := strings.TrimSpace(string(line))
	if strings.HasPrefix(s, ";") {
		return Event{}, false, nil
	}
	if v.closed {
		return Event{}, false, errorf(n, "a value after the ']' that closed the history's vector")
	}
	if rest, ok := strings.CutPrefix(s, "["); ok {
		if v.open > 0 {
			return Event{}, false, errorf(n, "a second vector: the history is one vector of maps, or one map per line")
		}
		v.open, s = n, rest
	}
	if rest, ok := strings.CutSuffix(strings.TrimSpace(s), "]"); ok && !strings.HasPrefix(rest, ";") {
		if v.open == 0 {
			return Event{}, false, errorf(n, "a ']' that closes no '['")
		}
		v.closed, s = true, rest
	}
	return parseEDNLine([]byte(s), n)
}

// ednKeyword is a keyword (without its colon); ednSymbol a bare symbol.
type (
	ednKeyword string
	ednSymbol  string
	ednString  string
	ednNumber  string // as written
	ednTagged  struct {
		tag   string
		value any
	}
	ednMap []ednEntry
)

type ednEntry struct{ k, v any }

func parseEDNLine(line []byte, n int) (Event, bool, error) {
	// One vector around the whole history (ednVector): its brackets may
	// share the first and last lines with maps.
	s := strings.TrimSpace(string(line))
	if s == "" || strings.HasPrefix(s, ";") {
		return Event{}, false, nil
	}
	p := &ednParser{s: s}
	v, err := p.value()
	if err != nil {
		return Event{}, false, errorf(n, "%v", err)
	}
	if p.skipSpace(); p.i < len(p.s) {
		return Event{}, false, errorf(n, "more than one EDN value on the line (at column %d)", p.i+1)
	}
	if t, ok := v.(ednTagged); ok {
		v = t.value
	}
	m, ok := v.(ednMap)
	if !ok {
		return Event{}, false, errorf(n, "not an EDN map: each line holds one operation {:process ... :type ... :f ...}")
	}
	for i, a := range m {
		for _, b := range m[:i] {
			if ka, ok := a.k.(ednKeyword); ok && b.k == ka {
				return Event{}, false, errorf(n, "the map gives :%s twice: each key once", ka)
			}
		}
	}
	get := func(k string) (any, bool) {
		for _, e := range m {
			if kw, ok := e.k.(ednKeyword); ok && string(kw) == k {
				return e.v, true
			}
		}
		return nil, false
	}
	e := Event{Line: n, Key: DefaultEDNKey, Null: true}
	switch pr, _ := get("process"); pr := pr.(type) {
	case ednNumber:
		if _, err := strconv.ParseInt(string(pr), 10, 64); err != nil {
			return Event{}, false, errorf(n, ":process: %s is not an integer: an integer or a string is required", pr)
		}
		e.Process, e.ProcNum = "p"+string(pr), true
	case ednString:
		e.Process = string(pr)
	case ednKeyword:
		return Event{}, false, nil // the nemesis, or another non-client
	default:
		return Event{}, false, errorf(n, ":process: an integer or a string is required")
	}
	t, _ := get("type")
	kw, ok := t.(ednKeyword)
	if !ok || !validType(string(kw)) {
		return Event{}, false, errorf(n, "unknown :type %s (:invoke, :ok, :fail or :info)", ednText(t))
	}
	e.Type = string(kw)
	f, _ := get("f")
	kw, ok = f.(ednKeyword)
	if !ok || !validF(string(kw)) {
		return Event{}, false, errorf(n, "unknown :f %s (:acquire, :release, :renew, :read or :write)", ednText(f))
	}
	e.F = string(kw)
	tm, _ := get("time")
	num, ok := tm.(ednNumber)
	if !ok {
		return Event{}, false, errorf(n, ":time: integer nanoseconds are required")
	}
	var err2 error
	if e.Time, err2 = strconv.ParseInt(string(num), 10, 64); err2 != nil {
		return Event{}, false, errorf(n, ":time: %s is not a 64-bit integer", num)
	}
	if e.Time < 0 {
		return Event{}, false, errorf(n, ":time: %d is negative: times are nanoseconds of one clock, 0 or more", e.Time)
	}
	if k, ok := get("key"); ok && k != nil {
		e.Key = ednScalar(k)
	}
	if v, ok := get("value"); ok && v != nil {
		e.Value, e.Null = ednText(v), false
		if s, ok := v.(ednString); ok {
			e.Value = string(s)
		}
	}
	if l, ok := get("lease-ms"); ok && l != nil {
		num, ok := l.(ednNumber)
		ms, err := strconv.ParseInt(string(num), 10, 64)
		if !ok || err != nil || ms <= 0 || ms > MaxLeaseMs {
			return Event{}, false, errorf(n, ":lease-ms: a positive integer up to %d (a year) is required", MaxLeaseMs)
		}
		e.LeaseMs = ms
	}
	switch tok, ok := get("token"); {
	case ok && (e.F == FWrite || e.F == FAcquire):
		_, str := tok.(ednString)
		_, num := tok.(ednNumber)
		text := ednScalar(tok)
		if str && text == "" {
			text = `""`
		}
		var err error
		if e.Token, err = fencingToken(text, str || num); err != nil {
			return Event{}, false, errorf(n, ":%v", err)
		}
	case ok && tok != nil:
		e.Token = ednScalar(tok)
	}
	return e, true, nil
}

// ednScalar is a key or token as text: strings unquoted.
func ednScalar(v any) string {
	if s, ok := v.(ednString); ok {
		return string(s)
	}
	return ednText(v)
}

// ednText renders v as EDN text.
func ednText(v any) string {
	switch v := v.(type) {
	case nil:
		return "nil"
	case ednKeyword:
		return ":" + string(v)
	case ednSymbol:
		return string(v)
	case ednString:
		return strconv.Quote(string(v))
	case ednNumber:
		return string(v)
	case bool:
		return strconv.FormatBool(v)
	case ednTagged:
		return "#" + v.tag + " " + ednText(v.value)
	case ednMap:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = ednText(e.k) + " " + ednText(e.v)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = ednText(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprint(v)
}

// ednParser reads one EDN value: maps, vectors, lists, sets, keywords,
// symbols, strings, numbers, characters, nil, booleans, tags and #_.
type ednParser struct {
	s     string
	i     int
	depth int
}

const maxEDNDepth = 64

func (p *ednParser) skipSpace() {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == ',' || c == '\r' || c == '\n':
			p.i++
		case c == ';':
			p.i = len(p.s)
		default:
			return
		}
	}
}

func (p *ednParser) value() (any, error) {
	p.skipSpace()
	if p.i >= len(p.s) {
		return nil, fmt.Errorf("truncated line: the EDN value does not end")
	}
	switch c := p.s[p.i]; c {
	case '{':
		p.i++
		items, err := p.seq('{', '}')
		if err != nil {
			return nil, err
		}
		if len(items)%2 != 0 {
			return nil, fmt.Errorf("a map with an odd number of forms")
		}
		m := make(ednMap, 0, len(items)/2)
		for j := 0; j < len(items); j += 2 {
			m = append(m, ednEntry{items[j], items[j+1]})
		}
		return m, nil
	case '[':
		p.i++
		return p.seq('[', ']')
	case '(':
		p.i++
		return p.seq('(', ')')
	case '"':
		return p.str()
	case '#':
		p.i++
		if p.i < len(p.s) {
			switch p.s[p.i] {
			case '{':
				p.i++
				return p.seq('{', '}')
			case '_':
				p.i++
				if _, err := p.value(); err != nil {
					return nil, err
				}
				return p.value()
			}
		}
		tag := p.token()
		if tag == "" {
			return nil, fmt.Errorf("a # with no tag at column %d", p.i+1)
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		return ednTagged{tag, v}, nil
	case '}', ']', ')':
		return nil, fmt.Errorf("unexpected %q at column %d", c, p.i+1)
	case '\\':
		p.i++
		return ednString(p.token()), nil
	case ':':
		p.i++
		k := p.token()
		if k == "" {
			return nil, fmt.Errorf("a : with no keyword at column %d", p.i)
		}
		return ednKeyword(k), nil
	}
	t := p.token()
	if t == "" {
		return nil, fmt.Errorf("unexpected %q at column %d", p.s[p.i], p.i+1)
	}
	switch {
	case t == "nil":
		return nil, nil
	case t == "true" || t == "false":
		return t == "true", nil
	case t[0] >= '0' && t[0] <= '9' || len(t) > 1 && (t[0] == '-' || t[0] == '+') && t[1] >= '0' && t[1] <= '9':
		return ednNumber(strings.TrimPrefix(strings.TrimSuffix(t, "N"), "+")), nil
	}
	return ednSymbol(t), nil
}

// seq reads forms up to the closing delimiter end of open, just read.
func (p *ednParser) seq(open, end byte) ([]any, error) {
	if p.depth++; p.depth > maxEDNDepth {
		return nil, fmt.Errorf("nested more than %d deep", maxEDNDepth)
	}
	defer func() { p.depth-- }()
	col := p.i // of open, 1-based
	var out []any
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, fmt.Errorf("truncated line: the '%c' at column %d is never closed by '%c'", open, col, end)
		}
		if p.s[p.i] == end {
			p.i++
			return out, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

func (p *ednParser) str() (any, error) {
	var b strings.Builder
	for p.i++; p.i < len(p.s); p.i++ {
		switch c := p.s[p.i]; c {
		case '"':
			p.i++
			return ednString(b.String()), nil
		case '\\':
			p.i++
			if p.i >= len(p.s) {
				break
			}
			switch e := p.s[p.i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return nil, fmt.Errorf("truncated line: a string is never closed")
}

// token reads a symbol, keyword or number up to a delimiter.
func (p *ednParser) token() string {
	start := p.i
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', ',', '\r', '\n', '{', '}', '[', ']', '(', ')', '"', ';':
			return p.s[start:p.i]
		}
		p.i++
	}
	return p.s[start:]
}
