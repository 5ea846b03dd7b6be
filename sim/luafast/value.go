package luafast

import "github.com/alicebob/miniredis/v2/server"

// Value is a native twin's reply handed back as a value (HandleValue)
// to a caller that would only parse the RESP written for it: Kind ':' an
// integer, '*' an array of integers, '+' a status, 'n' nil; 0 when the
// reply was written to the peer instead.
type Value struct {
	Kind   byte
	Int    int
	Ints   []int // reused by the engine's next script
	Status string
}

// HandleValue is Handle, except that a script its native twin answers,
// for a RESP2 peer, gives its reply in v instead of writing it: no reply
// writer, no formatting, nothing to parse.
func (e *Engine) HandleValue(c *server.Peer, cmd string, args []string, v *Value) bool {
	*v = Value{}
	e.value = v
	defer func() { e.value = nil }()
	return e.Handle(c, cmd, args)
}

// takeValue stores x's result in the value HandleValue waits for, if
// any, and reports whether it did.
func (e *Engine) takeValue(c *server.Peer, x *nativeRun) bool {
	v := e.value
	if v == nil || c.Resp3 {
		return false
	}
	e.value = nil
	switch x.res {
	case resNil:
		v.Kind = 'n'
	case resInt:
		v.Kind, v.Int = ':', x.resInt
	case resInts:
		v.Kind, v.Ints = '*', x.resArr
	case resStatus:
		v.Kind, v.Status = '+', x.resStr
	}
	return true
}
