package protocols

import (
	"errors"
	"fmt"
	"sort"
	"sync"
)

// catalog is every protocol known by name: the built-in ones, registered
// by their files' init, and users' own, registered at any time from any
// goroutine (parallel tests do).
var catalog = struct {
	sync.RWMutex
	m map[string]Protocol
}{m: map[string]Protocol{}}

// register adds a built-in protocol; a duplicate name is a programming error.
func register(p Protocol) {
	if err := Register(p); err != nil {
		panic(err)
	}
}

// Register adds a protocol of one's own to the catalog, so scenarios,
// the checker and locktest can run it by name. Protocols are written
// against the sim's thread API exactly as the built-in ones are.
func Register(p Protocol) error {
	switch {
	case p.Name == "":
		return errors.New("protocol needs a name")
	case p.New == nil:
		return fmt.Errorf("protocol %s has no New", p.Name)
	case p.Lease <= 0:
		return fmt.Errorf("protocol %s needs a default lease", p.Name)
	}
	catalog.Lock()
	defer catalog.Unlock()
	if _, dup := catalog.m[p.Name]; dup {
		return fmt.Errorf("protocol %s is already registered", p.Name)
	}
	catalog.m[p.Name] = p
	return nil
}

// Lookup returns the protocol called name.
func Lookup(name string) (Protocol, error) {
	catalog.RLock()
	p, ok := catalog.m[name]
	catalog.RUnlock()
	if !ok {
		return Protocol{}, fmt.Errorf("unknown protocol %q (try `locksim list`)", name)
	}
	return p, nil
}

// Protocols lists the catalog in name order.
func Protocols() []Protocol {
	catalog.RLock()
	out := make([]Protocol, 0, len(catalog.m))
	for _, p := range catalog.m {
		out = append(out, p)
	}
	catalog.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
