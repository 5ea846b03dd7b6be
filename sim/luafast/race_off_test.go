//go:build !race

package luafast

const raceEnabled = false
