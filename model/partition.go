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

// partition splits a history by key, in first-seen order. It is a
// counting sort: find each operation's part (consecutive operations
// often share a key), give each part its share of one array, and fill
// the shares in history order.
func partition(history []porcupine.Operation, key func(any) partKey) [][]porcupine.Operation {
	if len(history) > 0 && oneKey(history, key) {
		return [][]porcupine.Operation{history}
	}
	index := map[partKey]int{}         // a key's part
	place := make([]int, len(history)) // an operation's part
	sizes := make([]int, 0, 8)         // by part
	var last partKey
	for j, op := range history {
		if k := key(op.Input); j > 0 && k == last {
			place[j] = place[j-1]
		} else {
			i, ok := index[k]
			if !ok {
				i = len(sizes)
				index[k] = i
				sizes = append(sizes, 0)
			}
			place[j], last = i, k
		}
		sizes[place[j]]++
	}
	all := make([]porcupine.Operation, len(history))
	parts := make([][]porcupine.Operation, len(sizes))
	start := 0
	for i, n := range sizes {
		parts[i] = all[start : start : start+n]
		start += n
	}
	for j, op := range history {
		parts[place[j]] = append(parts[place[j]], op)
	}
	return parts
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

// KeyOf is the key an operation's input is on (a lease's key, without
// its site); "" for an input of no key.
func KeyOf(input any) string {
	k, ok := input.(keyed)
	if !ok {
		return ""
	}
	if p := k.partitionKey(); p[1] != "" {
		return p[1]
	}
	return k.partitionKey()[0]
}
