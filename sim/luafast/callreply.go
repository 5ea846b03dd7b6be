package luafast

import "bytes"

// CallReply is a nested call's reply as a fast path sees it: the replies
// whose Lua value is a number, a string, false (RESP nil) or a status
// table, and arrays of one number, string or nil.
type CallReply struct {
	kind byte   // 0 (not modelled), ':', '$', '+', 'n' (nil) or '*'
	elem byte   // '*': the element's kind
	n    int    // ':'
	body []byte // '$'
}

// First is the element of a one-element array reply.
func (r CallReply) First() CallReply { return CallReply{kind: r.elem, n: r.n, body: r.body} }

// parseSimple reads b's first reply as parseReply does, for the kinds above;
// anything else (errors, arrays, malformed input) is kind 0.
func parseSimple(b []byte) CallReply {
	i := bytes.IndexByte(b, '\n')
	if i < 2 {
		return CallReply{}
	}
	typ, body, rest := b[0], b[1:i-1], b[i+1:]
	switch typ {
	case ':':
		if len(body) == 0 {
			return CallReply{kind: ':'}
		}
		if n, ok := atoi(body); ok {
			return CallReply{kind: ':', n: n}
		}
	case '+':
		return CallReply{kind: '+'}
	case '$':
		n, ok := atoi(body)
		switch {
		case !ok:
		case n < 0:
			return CallReply{kind: 'n'}
		case len(rest) >= n+2:
			return CallReply{kind: '$', body: rest[:n]}
		}
	case '*':
		n, ok := atoi(body)
		switch {
		case !ok:
		case n < 0:
			return CallReply{kind: 'n'}
		case n == 1:
			// A nested status reply makes the VM panic: not modelled.
			if e := parseSimple(rest); e.kind == ':' || e.kind == '$' || e.kind == 'n' {
				return CallReply{kind: '*', elem: e.kind, n: e.n, body: e.body}
			}
		}
	}
	return CallReply{}
}

// IsInt reports whether r is an integer; Int is its value.
func (r CallReply) IsInt() bool { return r.kind == ':' }

// Int is an integer reply's value.
func (r CallReply) Int() int { return r.n }

// IsBulk reports whether r is a bulk string; Bulk is its text.
func (r CallReply) IsBulk() bool { return r.kind == '$' }

// Bulk is a bulk string reply's text.
func (r CallReply) Bulk() string { return string(r.body) }

// IsArray reports whether r is an array of one element (First).
func (r CallReply) IsArray() bool { return r.kind == '*' }

// Is reports whether r is the Lua number n (redis.call(...) == n).
func (r CallReply) Is(n int) bool { return r.kind == ':' && float64(r.n) == float64(n) }

// IsNil reports whether r is Lua false (a nil reply).
func (r CallReply) IsNil() bool { return r.kind == 'n' }

// Equals reports whether r is the Lua string s (redis.call(...) == s).
func (r CallReply) Equals(s string) bool { return r.kind == '$' && string(r.body) == s }
