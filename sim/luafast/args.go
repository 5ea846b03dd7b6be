package luafast

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// takeArgs converts the top arguments of a redis.call/pcall to strings, in
// the vm's reused slice; ok is false if one is neither string nor number.
// The slice stays taken until giveArgs, so a nested use (none is expected)
// would allocate its own. Servers and pre-hooks get the slice for the
// duration of Dispatch only: they keep its strings, never the slice.
func (v *vm) takeArgs(l *lua.LState, top int) (args []string, ok bool) {
	args, v.args = v.args[:0], nil
	for i := 1; i <= top; i++ {
		switch a := l.Get(i).(type) {
		case lua.LNumber:
			args = append(args, numberArg(a))
		case lua.LString:
			args = append(args, string(a))
		default:
			v.giveArgs(args)
			return nil, false
		}
	}
	return args, true
}

// giveArgs hands the slice back for the next call, clearing its strings so
// the slice does not keep replies or values alive.
func (v *vm) giveArgs(args []string) {
	clear(args)
	v.args = args[:0]
}

// smallNegative are the texts of -1 to -16 (strconv allocates for them).
var smallNegative = func() (s [16]string) {
	for i := range s {
		s[i] = strconv.Itoa(-1 - i)
	}
	return
}()

// numberArg is the text of a Lua number as a command argument.
func numberArg(a lua.LNumber) string {
	f := float64(a)
	if f != float64(int64(a)) {
		return a.String()
	}
	if n := int64(a); n < 0 && n >= -16 {
		return smallNegative[-1-n]
	}
	return strconv.FormatInt(int64(a), 10)
}
