package luafast

import (
	"github.com/alicebob/miniredis/v2/server"
	lua "github.com/yuin/gopher-lua"
)

// writeReply writes a script's return value to c like miniredis's
// luaToRedis (lua.go).
func writeReply(l *lua.LState, c *server.Peer, value lua.LValue) {
	if value == nil {
		c.WriteNull()
		return
	}
	switch t := value.(type) {
	case *lua.LNilType:
		c.WriteNull()
	case lua.LBool:
		if t {
			c.WriteInt(1)
		} else {
			c.WriteNull()
		}
	case lua.LNumber:
		c.WriteInt(int(t))
	case lua.LString:
		c.WriteBulk(string(t))
	case *lua.LTable:
		// A table with an 'err' or 'ok' field is an error or status reply.
		if s := t.RawGetString("err"); s.Type() != lua.LTNil {
			c.WriteError(s.String())
			return
		}
		if s := t.RawGetString("ok"); s.Type() != lua.LTNil {
			c.WriteInline(s.String())
			return
		}
		if t.Metatable == lua.LNil || t.Metatable == nil {
			// No metamethods: raw reads are equivalent to GetTable.
			n := 0
			for t.RawGetInt(n+1) != lua.LNil {
				n++
			}
			c.WriteLen(n)
			for j := 1; j <= n; j++ {
				writeReply(l, c, t.RawGetInt(j))
			}
			return
		}
		// Metamethods may run: read all elements first, as miniredis does.
		var result []lua.LValue
		for j := 1; ; j++ {
			val := l.GetTable(t, lua.LNumber(j))
			if val == nil {
				result = append(result, val)
				continue
			}
			if val.Type() == lua.LTNil {
				break
			}
			result = append(result, val)
		}
		c.WriteLen(len(result))
		for _, r := range result {
			writeReply(l, c, r)
		}
	default:
		// Functions, userdata, threads: miniredis panics here (killing
		// the process); real Redis replies nil, and so do we.
		c.WriteNull()
	}
}
