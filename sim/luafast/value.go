package luafast

import "github.com/alicebob/miniredis/v2/server"

// Value is a native twin's reply: Kind ':' an integer, '*' an array of
// integers, '+' a status, 'n' nil. HandleValue hands it to a caller that
// would only parse the RESP written for it; Kind 0 there: the reply was
// written to the peer instead.
type Value struct {
	Kind   byte
	Int    int
	Ints   []int // reused by the engine's next script
	Status string
}

// HandleValue is Handle, except that a script its native twin answers,
// for a RESP2 peer, gives its reply in v instead of writing it: no reply
// writer, no formatting, nothing to parse. With v nil, it is Handle.
func (e *Engine) HandleValue(c *server.Peer, cmd string, args []string, v *Value) bool {
	if v != nil {
		*v = Value{}
	}
	e.value = v
	defer func() { e.value = nil }()
	return e.Handle(c, cmd, args)
}

// takeValue hands x's reply to the value HandleValue waits for, if any,
// and reports whether it did.
func (e *Engine) takeValue(c *server.Peer, x *ScriptRun) bool {
	v := e.value
	if v == nil || c.Resp3 {
		return false
	}
	e.value = nil
	*v = x.out
	return true
}
