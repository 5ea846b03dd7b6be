package model

import "testing"

func TestMutex(t *testing.T) {
	runCases(t, Mutex(), []historyCase{
		{"serialised", []Op{
			op(0, 0, 1, acq("a"), ok), op(0, 2, 3, rel("a"), ok),
			op(1, 4, 5, acq("b"), ok), op(1, 6, 7, rel("b"), ok),
		}, true},
		{"overlap", []Op{
			op(0, 0, 1, acq("a"), ok), op(1, 2, 3, acq("b"), ok),
			op(0, 4, 5, rel("a"), ok),
		}, false},
		{"acquire concurrent with release", []Op{
			op(0, 0, 1, acq("a"), ok), op(1, 2, 6, acq("b"), ok), op(0, 3, 4, rel("a"), ok),
		}, true},
		{"release not-owner still ends the hold", []Op{
			op(0, 0, 1, acq("a"), ok), op(0, 2, 3, rel("a"), fail), op(1, 4, 5, acq("b"), ok),
		}, true},
		{"unknown acquire may not have happened", []Op{
			op(0, 0, inf, acq("a"), unknown), op(1, 2, 3, acq("b"), ok), op(1, 4, 5, rel("b"), ok),
		}, true},
		{"unknown release lets the next acquire through", []Op{
			op(0, 0, 1, acq("a"), ok), op(0, 2, inf, rel("a"), unknown), op(1, 4, 5, acq("b"), ok),
		}, true},
		{"renewal by the owner's watchdog", []Op{
			op(0, 0, 1, acq("c1/t1"), ok), op(1, 2, 3, renew("c1/watchdog"), ok), op(0, 4, 5, rel("c1/t1"), ok),
		}, true},
		{"renewal by another process", []Op{
			op(0, 0, 1, acq("c2/t1"), ok), op(1, 2, 3, renew("c1/watchdog"), ok),
		}, false},
		{"failed renewal changes nothing", []Op{
			op(0, 0, 1, acq("c2/t1"), ok), op(1, 2, 3, renew("c1/watchdog"), fail),
		}, true},
		{"renewal of a free lock lets no one in (liveness, not safety)", []Op{
			op(0, 0, 1, acq("c1/t1"), ok), op(0, 2, 3, rel("c1/t1"), ok), op(1, 4, 5, renew("c1/watchdog"), ok),
		}, true},
		{"renewal of a lock another process took after the release", []Op{
			op(0, 0, 1, acq("c1/t1"), ok), op(0, 2, 3, rel("c1/t1"), ok), op(2, 4, 5, acq("c2/t1"), ok), op(1, 6, 7, renew("c1/watchdog"), ok),
		}, false},
		{"crash ends the hold", []Op{
			op(0, 0, 1, acq("a"), ok), op(1, 2, 2, crash("a"), ok), op(2, 3, 4, acq("b"), ok),
		}, true},
		{"reentry is illegal in a strict mutex", []Op{
			op(0, 0, 1, acq("a"), ok), op(0, 2, 3, acq("a"), ok),
		}, false},
	})
}

func TestReentrantMutex(t *testing.T) {
	runCases(t, ReentrantMutex(), []historyCase{
		{"owner re-acquires and releases twice", []Op{
			op(0, 0, 1, acq("a"), ok), op(0, 2, 3, acq("a"), ok),
			op(0, 4, 5, rel("a"), ok), op(0, 6, 7, rel("a"), ok),
			op(1, 8, 9, acq("b"), ok),
		}, true},
		{"one release of two acquires keeps the lock", []Op{
			op(0, 0, 1, acq("a"), ok), op(0, 2, 3, acq("a"), ok),
			op(0, 4, 5, rel("a"), ok), op(1, 6, 7, acq("b"), ok),
		}, false},
		{"other client while held", []Op{
			op(0, 0, 1, acq("a"), ok), op(1, 2, 3, acq("b"), ok),
		}, false},
		{"unknown reentry may have counted", []Op{
			op(0, 0, 1, acq("a"), ok), op(0, 2, inf, acq("a"), unknown),
			op(2, 4, 5, rel("a"), ok), op(1, 6, 7, acq("b"), ok),
		}, true},
		{"crash frees every count", []Op{
			op(0, 0, 1, acq("a"), ok), op(0, 2, 3, acq("a"), ok),
			op(1, 4, 4, crash("a"), ok), op(2, 5, 6, acq("b"), ok),
		}, true},
		{"release by a non-owner", []Op{
			op(0, 0, 1, acq("a"), ok), op(1, 2, 3, rel("b"), ok),
		}, false},
	})
}
