package luafast

import (
	"bytes"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// Texts of the errors miniredis's server.ParseReply can return.
const (
	errEOF      = "EOF"
	errProtocol = "invalid request"
)

// simpleInArray is the Go panic miniredis's redisToLua raises for a status
// reply nested in an array; PCall turns it into the script error.
const simpleInArray = "interface conversion: interface {} is server.Simple, not string"

// parseReply converts the first RESP reply in b into the value redis.call
// returns, exactly as miniredis's server.ParseReply followed by the
// conversions of lua.go (mkCall/redisToLua). failed is set for error
// replies (also when nested in an array) and malformed input. Bulk strings
// are boxed through strs.
func parseReply(l *lua.LState, strs *strCache, b []byte) (v lua.LValue, errMsg string, failed bool) {
	p := respParser{b: b, strs: strs}
	v = p.value(l, true)
	if p.failed {
		return nil, p.errMsg, true
	}
	if p.simpleNested {
		panic(simpleInArray)
	}
	if v == nil { // nil bulk or nil array
		return lua.LFalse, "", false
	}
	return v, "", false
}

type respParser struct {
	b            []byte
	strs         *strCache
	pos          int
	simpleNested bool // a status reply inside an array
	failed       bool
	errMsg       string
}

func (p *respParser) fail(msg string) lua.LValue {
	p.failed, p.errMsg = true, msg
	return nil
}

// line returns the type byte and the rest of the next line minus its last
// two bytes (miniredis assumes "\r\n").
func (p *respParser) line() (byte, []byte, bool) {
	i := bytes.IndexByte(p.b[p.pos:], '\n')
	if i < 0 {
		p.fail(errEOF)
		return 0, nil, false
	}
	ln := p.b[p.pos : p.pos+i+1]
	p.pos += i + 1
	if len(ln) < 3 {
		p.fail(errProtocol)
		return 0, nil, false
	}
	return ln[0], ln[1 : len(ln)-2], true
}

// value parses one reply into its Lua value: nil for RESP nils, a status
// table for a top-level status reply.
func (p *respParser) value(l *lua.LState, top bool) lua.LValue {
	typ, body, ok := p.line()
	if !ok {
		return nil
	}
	switch typ {
	case '+':
		if !top {
			p.simpleNested = true
			return lua.LFalse
		}
		return statusTable(string(body))
	case '-':
		return p.fail(string(body))
	case ':':
		if len(body) == 0 {
			return boxInt(0)
		}
		n, ok := atoi(body)
		if !ok {
			return p.fail(errProtocol)
		}
		return boxInt(n)
	case '$':
		n, ok := atoi(body)
		if !ok {
			_, err := strconv.Atoi(string(body))
			return p.fail(err.Error())
		}
		if n < 0 {
			return nil
		}
		if len(p.b)-p.pos < n+2 {
			return p.fail(errEOF)
		}
		s := p.strs.boxBytes(p.b[p.pos : p.pos+n])
		p.pos += n + 2
		return s
	case '*':
		n, ok := atoi(body)
		if !ok {
			return p.fail(errProtocol)
		}
		if n < 0 {
			return nil
		}
		t := l.CreateTable(min(n, len(p.b)), 0)
		for i := 1; i <= n; i++ {
			ev := p.value(l, false)
			if p.failed {
				return nil
			}
			if ev == nil {
				ev = lua.LFalse
			}
			t.RawSetInt(i, ev)
		}
		return t
	default:
		return p.fail(errProtocol)
	}
}

// atoi is strconv.Atoi for byte slices (falls back to it for odd input).
func atoi(b []byte) (int, bool) {
	if len(b) > 0 && len(b) < 19 {
		neg := b[0] == '-'
		d := b
		if neg {
			d = b[1:]
		}
		n, ok := 0, len(d) > 0
		for _, c := range d {
			if c < '0' || c > '9' {
				ok = false
				break
			}
			n = n*10 + int(c-'0')
		}
		if ok {
			if neg {
				n = -n
			}
			return n, true
		}
	}
	n, err := strconv.Atoi(string(b))
	return n, err == nil
}
