package model

import (
	"strings"
	"testing"
)

func TestFencedRegister(t *testing.T) {
	w := func(tok int64) WriteInput { return WriteInput{Key: "file", Token: tok} }
	acc, rej, unk := WriteOutput{Accepted: true}, WriteOutput{}, WriteOutput{Unknown: true}
	runCases(t, FencedRegister(), []historyCase{
		{"increasing tokens", []Op{op(0, 0, 1, w(33), acc), op(1, 2, 3, w(34), acc)}, true},
		{"equal token accepted", []Op{op(0, 0, 1, w(34), acc), op(1, 2, 3, w(34), acc)}, true},
		{"stale token rejected", []Op{op(1, 0, 1, w(34), acc), op(0, 2, 3, w(33), rej)}, true},
		{"stale token accepted", []Op{op(1, 0, 1, w(34), acc), op(0, 2, 3, w(33), acc)}, false},
		{"fresh token rejected", []Op{op(1, 0, 1, w(33), acc), op(0, 2, 3, w(34), rej)}, false},
		{"concurrent writes reorder", []Op{op(1, 0, 5, w(34), acc), op(0, 1, 4, w(33), acc)}, true},
		{"unknown write may have raised the bar", []Op{
			op(1, 0, inf, w(35), unk), op(0, 2, 3, w(34), rej),
		}, true},
	})
}

func TestLockSet(t *testing.T) {
	add := func(e string) SetInput { return SetInput{Key: "s", Add: true, Elem: e} }
	read := SetInput{Key: "s"}
	ack, unk := SetOutput{OK: true}, SetOutput{Unknown: true}
	got := func(s string) SetOutput { return SetOutput{Read: s} }
	runCases(t, LockSet(), []historyCase{
		{"all adds read", []Op{op(0, 0, 1, add("b"), ack), op(1, 2, 3, add("a"), ack), op(2, 4, 5, read, got("a,b"))}, true},
		{"read in any order", []Op{op(0, 0, 1, add("b"), ack), op(1, 2, 3, add("a"), ack), op(2, 4, 5, read, got("b,a"))}, true},
		{"lost element", []Op{op(0, 0, 1, add("a"), ack), op(1, 2, 3, add("b"), ack), op(2, 4, 5, read, got("b"))}, false},
		{"unknown add may be missing", []Op{op(0, 0, inf, add("a"), unk), op(1, 2, 3, add("b"), ack), op(2, 4, 5, read, got("b"))}, true},
		{"unknown add may be present", []Op{op(0, 0, inf, add("a"), unk), op(2, 4, 5, read, got("a"))}, true},
		{"element never added", []Op{op(2, 4, 5, read, got("z"))}, false},
		{"unknown add may land after a read", []Op{op(0, 0, inf, add("a"), unk), op(1, 2, 3, read, got("")), op(1, 4, 5, read, got("a"))}, true},
		{"acknowledged add read, then lost", []Op{op(0, 0, inf, add("a"), unk), op(1, 2, 3, read, got("a")), op(1, 4, 5, read, got(""))}, false},
		{"acknowledged add known despite an unknown one", []Op{op(0, 0, inf, add("a"), unk), op(1, 2, 3, add("a"), ack), op(1, 4, 5, read, got(""))}, false},
	})
}

// TestLockSetManyUnknownAdds: a failover leaves dozens of adds of unknown
// outcome; the sets they allow double with each, and the model must step
// through them (as the checker's witness does, in one order) without
// enumerating those sets.
func TestLockSetManyUnknownAdds(t *testing.T) {
	m := LockSet()
	state := m.Init()
	step := func(in SetInput, out SetOutput) bool {
		ok, next := m.Step(state, in, out)
		if ok {
			state = next
		}
		return ok
	}
	var half []string
	for i := range 60 {
		e := string(rune('A' + i))
		step(SetInput{Key: "s", Add: true, Elem: e}, SetOutput{Unknown: true})
		if i%2 == 0 {
			half = append(half, e)
		}
	}
	step(SetInput{Key: "s", Add: true, Elem: "z"}, SetOutput{OK: true})
	if step(SetInput{Key: "s"}, SetOutput{Read: strings.Join(half, ",")}) {
		t.Fatal("a read without the acknowledged add was accepted")
	}
	if !step(SetInput{Key: "s"}, SetOutput{Read: strings.Join(append(half, "z"), ",")}) {
		t.Fatal("a read of half the unknown adds and the acknowledged one was refused")
	}
	if step(SetInput{Key: "s"}, SetOutput{Read: "B,z"}) {
		t.Fatal("after a read without B, a read with B was accepted with no add of B after it")
	}
}

func TestUniqueSetAndStock(t *testing.T) {
	ins := InsertInput{Name: "p"}
	runCases(t, UniqueSet(), []historyCase{
		{"insert then exists", []Op{op(0, 0, 1, ins, InsertOutput{Inserted: true}), op(1, 2, 3, ins, InsertOutput{})}, true},
		{"duplicate insert", []Op{op(0, 0, 1, ins, InsertOutput{Inserted: true}), op(1, 2, 3, ins, InsertOutput{Inserted: true})}, false},
	})
	buy := BuyInput{Key: "g", Initial: 2}
	runCases(t, StockCounterFrom(2), []historyCase{
		{"two sales", []Op{op(0, 0, 1, buy, BuyOutput{Read: 2, Sold: true}), op(1, 2, 3, buy, BuyOutput{Read: 1, Sold: true})}, true},
		{"lost update", []Op{op(0, 0, 1, buy, BuyOutput{Read: 2, Sold: true}), op(1, 2, 3, buy, BuyOutput{Read: 2, Sold: true})}, false},
	})
}

func TestSetHelpers(t *testing.T) {
	if got := SetWith("a,c", "b"); got != "a,b,c" {
		t.Fatalf("SetWith = %q", got)
	}
	if got := NormalizeSet("c,a,c"); got != "a,c" {
		t.Fatalf("NormalizeSet = %q", got)
	}
	if got := ProcessOf("c1#2/t1"); got != "c1#2" {
		t.Fatalf("ProcessOf = %q", got)
	}
}
