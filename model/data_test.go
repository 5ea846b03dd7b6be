package model

import "testing"

// TestHarmRoundTrip: a data judgement reads back as written, and a
// malformed one is refused rather than counted.
func TestHarmRoundTrip(t *testing.T) {
	for _, h := range []Harm{{}, {LostUpdates: 2, Explanation: "stock is 97 after 5 sales; of 100"}, {OversoldUnits: 1, LostElements: 3, Explanation: "x"}} {
		got, err := ParseHarm(h.String())
		if err != nil || got != h {
			t.Errorf("%q: got %+v, %v", h.String(), got, err)
		}
	}
	for _, bad := range []string{"lost-updates=2", "lost-updates=x; e", "stolen=1; e", "lost-updates=-1; e"} {
		if _, err := ParseHarm(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if name, final, ok := SplitDataKind(DataFinalKind("inventory")); name != "inventory" || !final || !ok {
		t.Errorf("SplitDataKind: %q %v %v", name, final, ok)
	}
	if _, _, ok := SplitDataKind(UserKind("account", "deposit")); ok {
		t.Error("a user resource's kind read as data")
	}
}
