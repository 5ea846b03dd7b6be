package model

import (
	"strconv"
	"testing"
)

// counter: add(n) returns the new total.
var counter = Spec{
	Name: "counter",
	Init: func() any { return 0 },
	Apply: func(state any, _, arg string) (any, string) {
		n, _ := strconv.Atoi(arg)
		next := state.(int) + n
		return next, strconv.Itoa(next)
	},
}

func TestSpecModel(t *testing.T) {
	add := func(key, n string) Call { return Call{Key: key, Op: "add", Arg: n} }
	res := func(r string) Outcome { return Outcome{Result: r} }
	unk := Outcome{Unknown: true}
	runCases(t, counter.Model(), []historyCase{
		{"serial adds", []Op{op(0, 0, 1, add("k", "1"), res("1")), op(1, 2, 3, add("k", "2"), res("3"))}, true},
		{"lost update", []Op{op(0, 0, 5, add("k", "1"), res("1")), op(1, 2, 3, add("k", "2"), res("2"))}, false},
		{"concurrent adds in either order", []Op{op(0, 0, 5, add("k", "1"), res("3")), op(1, 2, 3, add("k", "2"), res("2"))}, true},
		{"keys are independent", []Op{op(0, 0, 1, add("a", "1"), res("1")), op(1, 2, 3, add("b", "2"), res("2"))}, true},
		{"refused changes nothing", []Op{op(0, 0, 1, add("k", "1"), res(ResRejected)), op(1, 2, 3, add("k", "2"), res("2"))}, true},
		{"unknown may have happened", []Op{op(0, 0, inf, add("k", "1"), unk), op(1, 2, 3, add("k", "2"), res("3"))}, true},
		{"unknown may not have", []Op{op(0, 0, inf, add("k", "1"), unk), op(1, 2, 3, add("k", "2"), res("2"))}, true},
		{"wrong result", []Op{op(0, 0, 1, add("k", "1"), res("7"))}, false},
	})
}

func TestSpecValidateAndKinds(t *testing.T) {
	if err := counter.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Spec{{}, {Name: "a/b", Init: counter.Init, Apply: counter.Apply}, {Name: "x"}} {
		if bad.Validate() == nil {
			t.Errorf("%+v: valid", bad)
		}
	}
	if r, o, ok := SplitUserKind(UserKind("account", "deposit")); !ok || r != "account" || o != "deposit" {
		t.Fatalf("split: %q %q %v", r, o, ok)
	}
	if _, _, ok := SplitUserKind(OpAcquire); ok {
		t.Fatal("a built-in kind read as a user resource's")
	}
}
