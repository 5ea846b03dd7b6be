package checker

import "testing"

// Every overlap a foreign release or a retried release let in is told
// twice, each under its own property: the overlap under mutual
// exclusion, the release of a lease the client did not hold under
// ownership. A foreign renewal is never a mutual-exclusion violation.
func TestOwnershipFiledApartFromExclusion(t *testing.T) {
	n := 0
	for _, c := range causeCases {
		if c.want != CauseForeignRelease && c.want != CauseRetriedCommand && c.want != CauseForeignRenewal {
			continue
		}
		n++
		res := Check(c.trace(), Options{LeaseMs: 10000})
		owned := false
		for _, v := range res.Violations {
			if v.Property == PropOwnership && v.Cause == c.want {
				owned = true
			}
			if v.Property == PropMutex && v.Cause == CauseForeignRenewal {
				t.Errorf("%s: foreign renewal under mutual exclusion: %+v", c.name, v)
			}
			if v.Property == PropOwnership && v.Cause != CauseForeignRelease && v.Cause != CauseRetriedCommand && v.Cause != CauseForeignRenewal {
				t.Errorf("%s: ownership violation with cause %s", c.name, v.Cause)
			}
		}
		if !owned {
			t.Errorf("%s: no %s violation under ownership: %+v", c.name, c.want, res.Violations)
		}
	}
	if n < 3 {
		t.Fatalf("%d cases of foreign releases and renewals, want at least 3", n)
	}
}
