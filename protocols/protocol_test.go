package protocols

import (
	"path/filepath"
	"testing"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim/trace"
)

// Renews says what the lock does: with no fault, a hold of two leases
// keeps its key when a background thread renews it, and loses it when
// nothing does. The catalog's locks and the described ones.
func TestRenewsIsWhatTheLockDoes(t *testing.T) {
	var runs []Scenario
	for _, p := range Protocols() {
		if p.Name != "local-mutex" { // holds no Redis key
			runs = append(runs, Scenario{Protocol: p.Name})
		}
	}
	paths, _ := filepath.Glob("testdata/protocol-files/*.json")
	for _, path := range paths {
		f, err := LoadProtocolFile(path)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, Scenario{ProtocolFile: f})
	}
	for _, sc := range runs {
		p, err := sc.LookupProtocol()
		if err != nil {
			t.Fatal(err)
		}
		sc.Seed, sc.Clients, sc.Ops, sc.WorkMs = 1, 1, 1, 2*p.Lease.Milliseconds()
		_, tr, err := Run(sc)
		if err != nil {
			t.Fatal(err)
		}
		released := int64(-1)
		for _, op := range tr.Ops {
			if op.Kind == model.OpRelease {
				released = op.Call
			}
		}
		expired := false
		for _, e := range tr.Events {
			expired = expired || e.Kind == trace.EvExpire && e.T < released
		}
		if released < 0 || expired == p.Renews {
			t.Errorf("%s (Renews %v): released at %d ns, key expired under the holder: %v", p.Name, p.Renews, released, expired)
		}
	}
}
