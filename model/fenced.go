package model

import (
	"fmt"
	"math"

	"github.com/anishathalye/porcupine"
)

// WriteInput is one write to a fenced storage on Key, carrying the
// writer's fencing token.
type WriteInput struct {
	Key   string
	Token int64
}

func (in WriteInput) partitionKey() partKey { return partKey{in.Key} }

// WriteOutput says whether the storage accepted the write.
type WriteOutput struct {
	Accepted bool
	Unknown  bool
}

// FencedRegister checks a storage that accepts a write only with a token
// not lower than the highest it accepted before, and rejects the others.
// The state is that highest token. Partitioned by key.
func FencedRegister() porcupine.Model {
	return constInit(powerset(porcupine.NondeterministicModel{
		Partition: partitionByKey,
		Init:      func() []any { return []any{int64(math.MinInt64)} },
		Equal:     func(a, b any) bool { return a.(int64) == b.(int64) },
		DescribeOperation: func(input, output any) string {
			in, out := inputOf[WriteInput](input), output.(WriteOutput)
			res := ResRejected
			switch {
			case out.Unknown:
				res = "?"
			case out.Accepted:
				res = ResOK
			}
			return fmt.Sprintf("write(token %d) -> %s", in.Token, res)
		},
		DescribeState: func(state any) string {
			if state.(int64) == math.MinInt64 {
				return "no write accepted"
			}
			return fmt.Sprintf("highest token %d", state.(int64))
		},
	}, fencedStep))
}

func fencedStep(state, input, output any, next []any) []any {
	hi := state.(int64)
	in := inputOf[WriteInput](input)
	out := output.(WriteOutput)
	fresh := in.Token >= hi
	switch {
	case out.Unknown && fresh:
		return append(next, state, in.Token)
	case out.Unknown:
		return append(next, state)
	case out.Accepted && fresh:
		return append(next, in.Token)
	case !out.Accepted && !fresh:
		return append(next, state)
	}
	return next
}
