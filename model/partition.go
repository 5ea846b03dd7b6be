package model

import (
	"strings"

	"github.com/anishathalye/porcupine"
)

// keyed is implemented by every input type: the key its model partitions on.
type keyed interface{ partitionKey() partKey }

// partKey is a key, or a site and a key (LeaseInput), compared as they
// are: no string is built to partition.
type partKey [2]string

func partitionByKey(history []porcupine.Operation) [][]porcupine.Operation {
	return partition(history, func(in any) partKey {
		if k, ok := in.(keyed); ok {
			return k.partitionKey()
		}
		return partKey{}
	})
}

// partition splits a history by key, in first-seen order. The parts
// share one backing array, cut to size.
func partition(history []porcupine.Operation, key func(any) partKey) [][]porcupine.Operation {
	if len(history) > 0 && oneKey(history, key) {
		return [][]porcupine.Operation{history}
	}
	keys := MakeSlots[partKey](4)
	sizes := make([]int, 0, smallSlots)
	var small [64]int32 // of, for a short history
	of := small[:0]     // the part of each operation
	if len(history) > len(small) {
		of = make([]int32, 0, len(history))
	}
	var last partKey
	i := -1
	for _, op := range history {
		if k := key(op.Input); i < 0 || k != last {
			i, last = keys.Add(k), k
		}
		if i == len(sizes) {
			sizes = append(sizes, 0)
		}
		of = append(of, int32(i))
		sizes[i]++
	}
	backing := make([]porcupine.Operation, len(history))
	out := make([][]porcupine.Operation, len(sizes))
	at := 0
	for i, n := range sizes {
		out[i] = backing[at : at : at+n]
		at += n
	}
	for j, op := range history {
		out[of[j]] = append(out[of[j]], op)
	}
	return out
}

// oneKey reports a history whose operations all have one key: it is its
// own only part, as it is.
func oneKey(history []porcupine.Operation, key func(any) partKey) bool {
	first := key(history[0].Input)
	for i := 1; i < len(history); i++ {
		if key(history[i].Input) != first {
			return false
		}
	}
	return true
}

// inputOf reads an operation's input of type T, held as a value or,
// sparing the checker an allocation per operation, as a pointer.
func inputOf[T any](input any) T {
	if p, ok := input.(*T); ok {
		return *p
	}
	return input.(T)
}

// ProcessOf is the process part of a client name ("c1/t1" -> "c1").
func ProcessOf(client string) string {
	p, _, _ := strings.Cut(client, "/")
	return p
}

// foreignRenewal reports a renewal that succeeded while another process
// held the lock. One of a free lock keeps a key alive that nobody holds:
// it blocks the others but lets no one in (liveness, not safety).
func foreignRenewal(owner string, in LockInput, out LockOutput) bool {
	return out.OK && !out.Unknown && owner != "" && !sameHolder(owner, in.Owner)
}

// sameHolder reports whether renewer may act for owner: the same thread,
// or another thread of its process (a watchdog).
func sameHolder(owner, renewer string) bool {
	return owner == renewer || ProcessOf(owner) == ProcessOf(renewer)
}
