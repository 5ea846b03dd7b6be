package model

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// InsertInput is a unique-name registration: re-check Name, insert if
// absent, as one critical section.
type InsertInput struct{ Name string }

func (in InsertInput) partitionKey() partKey { return partKey{in.Name} }

// InsertOutput says whether the row was inserted or found existing.
type InsertOutput struct {
	Inserted bool
	Unknown  bool
}

// UniqueSet checks that every name is inserted at most once: an insert
// succeeds only if the name is absent. Partitioned by name, so the state
// is whether the name is present.
func UniqueSet() porcupine.Model {
	return constInit(powerset(porcupine.NondeterministicModel{
		Partition: partitionByKey,
		Init:      func() []any { return []any{false} },
		Equal:     func(a, b any) bool { return a.(bool) == b.(bool) },
		DescribeOperation: func(input, output any) string {
			in, out := inputOf[InsertInput](input), output.(InsertOutput)
			res := "exists"
			switch {
			case out.Unknown:
				res = "?"
			case out.Inserted:
				res = "inserted"
			}
			return fmt.Sprintf("insert(%s) -> %s", in.Name, res)
		},
		DescribeState: func(state any) string {
			if state.(bool) {
				return "present"
			}
			return "absent"
		},
	}, insertStep))
}

func insertStep(state, _, output any, next []any) []any {
	present := state.(bool)
	out := output.(InsertOutput)
	switch {
	case out.Unknown:
		return append(next, present, true)
	case out.Inserted && !present:
		return append(next, true)
	case !out.Inserted && present:
		return append(next, true)
	}
	return next
}

// BuyInput is one stock purchase on Key: read the stock and, if positive,
// write it back decremented, as one critical section.
type BuyInput struct {
	Key     string
	Initial int // the stock before any purchase
}

func (in BuyInput) partitionKey() partKey { return partKey{in.Key} }

// BuyOutput is the stock the buyer read and whether it sold.
type BuyOutput struct {
	Read    int
	Sold    bool
	Unknown bool
}

// StockCounterFrom checks purchases against a counter that starts at
// initial units and only decrements when positive: each purchase must read
// exactly the current stock. Partitioned by key; the state is the stock.
func StockCounterFrom(initial int) porcupine.Model {
	return constInit(powerset(porcupine.NondeterministicModel{
		Partition: partitionByKey,
		Init:      func() []any { return []any{initial} },
		Equal:     func(a, b any) bool { return a.(int) == b.(int) },
		DescribeOperation: func(input, output any) string {
			out := output.(BuyOutput)
			switch {
			case out.Unknown:
				return "buy -> ?"
			case out.Sold:
				return fmt.Sprintf("buy -> sold (read %d)", out.Read)
			}
			return fmt.Sprintf("buy -> sold out (read %d)", out.Read)
		},
		DescribeState: func(state any) string { return fmt.Sprintf("stock %d", state.(int)) },
	}, stockStep))
}

func stockStep(state, _, output any, next []any) []any {
	stock := state.(int)
	out := output.(BuyOutput)
	switch {
	case out.Unknown:
		if stock > 0 {
			return append(next, stock, stock-1)
		}
		return append(next, stock)
	case out.Read != stock:
		return next
	case out.Sold && stock > 0:
		return append(next, stock-1)
	case !out.Sold && stock <= 0:
		return append(next, stock)
	}
	return next
}
