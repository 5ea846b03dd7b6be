package model

import "testing"

// WriteToken finds the token where the builders put it, and nothing in a
// write that carries none.
func TestWriteTokenReadsTheBuilders(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{FencedInsert("person-0", "17"), "17"},
		{FencedInsert("person-0", ""), ""},
		{FencedEval("return 1", []string{"data", "data:fence"}, "33", "v"), "33"},
		{FencedEval("return 1", nil, "5"), "5"},
		{[]string{"SET", "k", "v"}, ""},
		{[]string{"EVAL", "s", "x", "k"}, ""},
	} {
		if got := WriteToken(c.args); got != c.want {
			t.Errorf("WriteToken(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}
