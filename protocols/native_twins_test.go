package protocols

import (
	"slices"
	"testing"

	"github.com/locksim/locksim/sim/luafast"
)

// nativeScripts are the scripts the protocols send that sim/luafast runs
// as native Go twins: a script given a text of its own here would
// silently run on the Lua VM, and a twin no protocol uses is dead.
var nativeScripts = map[string]string{
	"redissonLock316":       redissonLock316,
	"redissonUnlock316":     redissonUnlock316,
	"redissonRenew316":      redissonRenew316,
	"redissonLock312":       redissonLock312,
	"redissonLockLatest":    redissonLockLatest,
	"redissonUnlockLatest":  redissonUnlockLatest,
	"redissonRenewLatest":   redissonRenewLatest,
	"redissonFencedLock":    redissonFencedLock,
	"compareAndDelete":      compareAndDelete,
	"redsyncDelete":         redsyncDelete,
	"redsyncTouch":          redsyncTouch,
	"redsyncTouchWithSetNX": redsyncTouchWithSetNX,
	"springObtain":          springObtain,
	"springUnlinkUnlock":    springUnlinkUnlock,
	"springDeleteUnlock":    springDeleteUnlock,
	"fencedWrite":           fencedWrite,
	"redislockObtain":       redislockObtain,
	"redislockRelease":      redislockRelease,
	"redislockRefresh":      redislockRefresh,
}

func TestNativeTwinsMatchScripts(t *testing.T) {
	registered := luafast.NativeBodies()
	for name, body := range nativeScripts {
		if !slices.Contains(registered, body) {
			t.Errorf("%s has no native twin in sim/luafast (body edited here or there?)", name)
		}
	}
	for _, body := range registered {
		found := false
		for _, b := range nativeScripts {
			found = found || b == body
		}
		if !found {
			t.Errorf("sim/luafast has a twin for a body no protocol script here matches:\n%s", body)
		}
	}
}
