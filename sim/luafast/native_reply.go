package luafast

import "bytes"

// reply is a nested call's reply as a twin sees it: the replies whose Lua
// value is a number, a string, false (RESP nil) or a status table, and
// arrays of one number, string or nil.
type reply struct {
	kind byte   // 0 (not modelled), ':', '$', '+', 'n' (nil) or '*'
	elem byte   // '*': the element's kind
	n    int    // ':'
	body []byte // '$'
}

// first is the element of a '*' reply.
func (r reply) first() reply { return reply{kind: r.elem, n: r.n, body: r.body} }

// parseSimple reads b's first reply as parseReply does, for the kinds above;
// anything else (errors, arrays, malformed input) is kind 0.
func parseSimple(b []byte) reply {
	i := bytes.IndexByte(b, '\n')
	if i < 2 {
		return reply{}
	}
	typ, body, rest := b[0], b[1:i-1], b[i+1:]
	switch typ {
	case ':':
		if len(body) == 0 {
			return reply{kind: ':'}
		}
		if n, ok := atoi(body); ok {
			return reply{kind: ':', n: n}
		}
	case '+':
		return reply{kind: '+'}
	case '$':
		n, ok := atoi(body)
		switch {
		case !ok:
		case n < 0:
			return reply{kind: 'n'}
		case len(rest) >= n+2:
			return reply{kind: '$', body: rest[:n]}
		}
	case '*':
		n, ok := atoi(body)
		switch {
		case !ok:
		case n < 0:
			return reply{kind: 'n'}
		case n == 1:
			// A nested status reply makes the VM panic: not modelled.
			if e := parseSimple(rest); e.kind == ':' || e.kind == '$' || e.kind == 'n' {
				return reply{kind: '*', elem: e.kind, n: e.n, body: e.body}
			}
		}
	}
	return reply{}
}

// is reports whether r is the Lua number n (redis.call(...) == n).
func (r reply) is(n int) bool { return r.kind == ':' && float64(r.n) == float64(n) }

// isNil reports whether r is Lua false (a nil reply).
func (r reply) isNil() bool { return r.kind == 'n' }

// equals reports whether r is the Lua string s (redis.call(...) == s).
func (r reply) equals(s string) bool { return r.kind == '$' && string(r.body) == s }
