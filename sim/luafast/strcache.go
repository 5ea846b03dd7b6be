package luafast

import lua "github.com/yuin/gopher-lua"

// strCache reuses boxed Lua strings: a run's KEYS, ARGV and bulk replies
// repeat a few lock names, owner ids and values, and a pooled vm sees the
// same ones run after run. A Lua string is a value (compared by content),
// so sharing its box is not observable.
type strCache struct {
	m map[string]lua.LValue
}

const (
	strCacheMax    = 1024 // entries before the cache starts afresh
	strCacheMaxLen = 128  // longer strings are not cached
)

// box returns s as a Lua value.
func (c *strCache) box(s string) lua.LValue {
	if len(s) > strCacheMaxLen {
		return lua.LString(s)
	}
	if v, ok := c.m[s]; ok {
		return v
	}
	v := lua.LValue(lua.LString(s))
	c.add(s, v)
	return v
}

// boxBytes returns b as a Lua string value, copying b only on a miss.
func (c *strCache) boxBytes(b []byte) lua.LValue {
	if len(b) > strCacheMaxLen {
		return lua.LString(b)
	}
	if v, ok := c.m[string(b)]; ok {
		return v
	}
	s := string(b)
	v := lua.LValue(lua.LString(s))
	c.add(s, v)
	return v
}

func (c *strCache) add(s string, v lua.LValue) {
	if c.m == nil || len(c.m) >= strCacheMax {
		c.m = make(map[string]lua.LValue, 64)
	}
	c.m[s] = v
}
