package protocols

import (
	"fmt"
	"sort"
	"sync"
)

// registry is a table of named entries (protocols, workloads) filled by
// the files' init and by users at any time from any goroutine.
type registry[T any] struct {
	what string // "protocol", "workload": for messages
	mu   sync.RWMutex
	m    map[string]T
}

func newRegistry[T any](what string) *registry[T] {
	return &registry[T]{what: what, m: map[string]T{}}
}

// add enters v under name; a taken name is an error.
func (r *registry[T]) add(name string, v T) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.m[name]; dup {
		return fmt.Errorf("%s %s is already registered", r.what, name)
	}
	r.m[name] = v
	return nil
}

// get returns the entry called name.
func (r *registry[T]) get(name string) (T, error) {
	r.mu.RLock()
	v, ok := r.m[name]
	r.mu.RUnlock()
	if !ok {
		return v, fmt.Errorf("unknown %s %q (try `locksim list`)", r.what, name)
	}
	return v, nil
}

// all lists the entries in name order.
func (r *registry[T]) all() []T {
	r.mu.RLock()
	names := make([]string, 0, len(r.m))
	for n := range r.m {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]T, len(names))
	for i, n := range names {
		out[i] = r.m[n]
	}
	r.mu.RUnlock()
	return out
}
