//go:build race

package luafast

// raceEnabled shortens the differential test under the (slow) race detector.
const raceEnabled = true
