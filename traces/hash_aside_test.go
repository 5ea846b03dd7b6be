package traces

import (
	"testing"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

// A trace hashed on another core while it is checked gets the hash and
// the report it gets in turn: the check does not change the trace (with
// -race, it also shows that the two only read it).
func TestHashAsideOfTheCheck(t *testing.T) {
	defer func(n int) { hashAside = n }(hashAside)
	for seed := uint64(1); seed <= 6; seed++ {
		sc := protocols.Scenario{Seed: seed, Protocol: "redisson", Clients: 6, FaultKinds: trace.KindNames()}
		hashAside = 0
		aside, err := Execute(sc)
		if err != nil {
			t.Fatal(err)
		}
		hashAside = 1 << 62
		inTurn, err := Execute(sc)
		if err != nil {
			t.Fatal(err)
		}
		if aside.File.TraceSHA256 != inTurn.File.TraceSHA256 || aside.File.TraceSHA256 != Hash(aside.File) {
			t.Fatalf("seed %d: hashed aside %s, in turn %s", seed, aside.File.TraceSHA256, inTurn.File.TraceSHA256)
		}
		if err := sameReport(aside.File.Report, inTurn.File.Report); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}
