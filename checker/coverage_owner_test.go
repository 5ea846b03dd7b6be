package checker

import (
	"math/rand/v2"
	"testing"
)

// TestOtherOwnerAtAsScan compares keySiteGrants.otherOwnerAt with the
// scan of every grant on the key at the site it replaces, over random
// grants (made in time order, some never ended) and releases.
func TestOtherOwnerAtAsScan(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	owners := []string{"c1/t1", "c2/t1", "c3/t1"}
	sites := []string{"n1", "n2"}
	found := 0
	for round := range 300 {
		var grants []*grant
		var at int64
		for range r.IntN(40) {
			at += r.Int64N(50)
			end := at + r.Int64N(200)
			if r.IntN(8) == 0 {
				end = maxTime
			}
			grants = append(grants, &grant{Key: "k", Site: sites[r.IntN(2)], Owner: owners[r.IntN(3)], T: at, EndT: end})
		}
		k := indexKeySites(grants)
		for range 20 {
			h := hold{Key: "k", Client: owners[r.IntN(3)], End: r.Int64N(at + 100)}
			gs := siteGrants{{site: sites[r.IntN(2)]}}
			want := false
			for _, g := range grants {
				if g.Site == gs[0].site && g.Owner != h.Client && g.T <= h.End && g.EndT > h.End {
					want = true
				}
			}
			if got := k.otherOwnerAt(h, gs); got != want {
				t.Fatalf("round %d: release by %s at %d on %s: got %v, want %v", round, h.Client, h.End, gs[0].site, got, want)
			}
			if want {
				found++
			}
		}
	}
	if found == 0 {
		t.Fatal("no release found another owner: the test compares nothing")
	}
}
