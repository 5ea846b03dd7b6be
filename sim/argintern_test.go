package sim

import (
	"slices"
	"strconv"
	"testing"
)

// Traced arguments are the command's own (script bodies named), never the
// caller's slice, and a repeated command shares the earlier list.
func TestTraceArgsShareRepeats(t *testing.T) {
	w := New(Config{})
	body := "return redis.call('GET', KEYS[1])"
	name := w.scriptName(body)
	var kept [][]string
	var want [][]string
	for i := range 500 { // more distinct lists than the table has slots
		args := []string{"EVAL", body, "1", "lock" + strconv.Itoa(i%40), strconv.Itoa(i % 7)}
		got := w.traceArgs(args, true)
		args[3] = "overwritten by the caller"
		kept = append(kept, got)
		want = append(want, []string{"EVAL", name, "1", "lock" + strconv.Itoa(i%40), strconv.Itoa(i % 7)})
	}
	for i := range kept {
		if !slices.Equal(kept[i], want[i]) {
			t.Fatalf("list %d traced as %q, want %q", i, kept[i], want[i])
		}
	}
	a := w.traceArgs([]string{"SET", "k", "v"}, false)
	b := w.traceArgs([]string{"SET", "k", "v"}, false)
	if &a[0] != &b[0] {
		t.Fatal("the same command twice in a row got two copies")
	}
	if c := w.traceArgs([]string{"SET", "kv"}, false); slices.Equal(c, a) {
		t.Fatalf("%q and %q were confused", c, a)
	}
	if w.traceArgs(nil, false) != nil {
		t.Fatal("no arguments traced as a list")
	}
}

func TestIntegerReplyText(t *testing.T) {
	for _, n := range []int64{-1 << 63, -3, -2, -1, 0, 1, 9, 10, 29876} {
		if got, want := (Reply{Kind: ':', Int: n}).String(), "(integer) "+strconv.FormatInt(n, 10); got != want {
			t.Fatalf("%d as %q, want %q", n, got, want)
		}
	}
}
