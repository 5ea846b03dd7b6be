package suggest

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"", "abc", 3}, {"redisson", "redisson", 0}, {"redison", "redisson", 1},
		{"clinets", "clients", 1}, {"Redisson", "redisson", 0}, {"kitten", "sitting", 3},
		{"gc-pause", "gc_pasue", 2}, {"lease", "lease_ms", 3},
	} {
		if got := Distance(c.a, c.b); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
		if got := Distance(c.b, c.a); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.b, c.a, got, c.d)
		}
	}
}

func TestNearestAndHint(t *testing.T) {
	names := []string{"redisson", "redlock", "setnx-del", "setnx-lua-del"}
	for _, c := range []struct {
		in, want string
		near     bool
	}{
		{"redison", "redisson", true}, {"REDLOCK", "redlock", true}, {"setnx-lau-del", "setnx-lua-del", true},
		{"zookeeper", "", false}, {"x", "", false},
	} {
		got, ok := Nearest(c.in, names)
		if ok != c.near || (ok && got != c.want) {
			t.Errorf("Nearest(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.near)
		}
	}
	if h := Hint("redison", names); h != ` (did you mean "redisson"?)` {
		t.Errorf("hint %q", h)
	}
	if h := Hint("zookeeper", names); !strings.Contains(h, "valid: redisson, redlock") {
		t.Errorf("hint for a far name %q", h)
	}
	if err := Unknown("protocol", "redison", names); err.Error() != `unknown protocol "redison" (did you mean "redisson"?)` {
		t.Errorf("%v", err)
	}
	if _, ok := Nearest("a", nil); ok {
		t.Error("a suggestion from no candidates")
	}
}
