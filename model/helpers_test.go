package model

import (
	"testing"

	"github.com/anishathalye/porcupine"
)

// op builds one porcupine operation.
func op(client int, call, ret int64, in, out any) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Call: call, Return: ret, Input: in, Output: out}
}

// Op is a porcupine operation, short for tables.
type Op = porcupine.Operation

type historyCase struct {
	name  string
	ops   []porcupine.Operation
	legal bool
}

func runCases(t *testing.T, m porcupine.Model, cases []historyCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := porcupine.CheckOperations(m, c.ops); got != c.legal {
				t.Fatalf("linearizable = %v, want %v", got, c.legal)
			}
		})
	}
}

const inf = int64(^uint64(0) >> 1)

func acq(o string) LockInput   { return LockInput{Acquire: true, Key: "k", Owner: o} }
func rel(o string) LockInput   { return LockInput{Key: "k", Owner: o} }
func renew(o string) LockInput { return LockInput{Renew: true, Key: "k", Owner: o} }
func crash(o string) LockInput { return LockInput{Crash: true, Key: "k", Owner: o} }

var (
	ok      = LockOutput{OK: true}
	fail    = LockOutput{}
	unknown = LockOutput{Unknown: true}
)
