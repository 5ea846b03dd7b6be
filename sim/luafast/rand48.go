package luafast

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// rand48 replaces gopher-lua's math.random/math.randomseed, which use Go's
// global math/rand (unseeded, shared, not reproducible). Like Redis, every
// script run starts from srand48(0), and the generator is Redis's rand48
// (redisLrand48), so scripts see the same sequence as on a real Redis:
// math.random() -> 0.17082803611217, 0.74990198051087, ...
type rand48 struct{ x uint64 }

const (
	rand48A    = 0x5DEECE66D
	rand48C    = 0xB
	rand48Mask = 1<<48 - 1
	lrand48Max = math.MaxInt32 // REDIS_LRAND48_MAX
)

func (r *rand48) seed(s int32) { r.x = uint64(uint32(s))<<16 | 0x330E }

func (r *rand48) next() int32 {
	r.x = (rand48A*r.x + rand48C) & rand48Mask
	return int32(r.x >> 17)
}

// luaRandom is Redis's math_random (deps/lua/src/lmathlib.c).
func (r *rand48) luaRandom(L *lua.LState) int {
	f := float64(r.next()%lrand48Max) / float64(lrand48Max)
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(f))
	case 1:
		u := L.CheckInt(1)
		if u < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(f*float64(u)) + 1))
	case 2:
		l, u := L.CheckInt(1), L.CheckInt(2)
		if l > u {
			L.ArgError(2, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(f*float64(u-l+1)) + float64(l)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

func (r *rand48) luaRandomseed(L *lua.LState) int {
	r.seed(int32(L.CheckInt(1)))
	return 0
}
