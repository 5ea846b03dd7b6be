package locktest_test

import "github.com/locksim/locksim/traces/locktest"

const raceEnabled = locktest.RaceEnabled
