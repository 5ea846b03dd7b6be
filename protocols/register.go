package protocols

import (
	"errors"
	"fmt"

	"github.com/locksim/locksim/sim"
)

// catalog is every protocol known by name: the built-in ones, registered
// by their files' init, and users' own, registered at any time from any
// goroutine (parallel tests do).
var catalog = newRegistry[Protocol]("protocol")

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
	return catalog.add(p.Name, p)
}

// Lookup returns the protocol called name.
func Lookup(name string) (Protocol, error) {
	return catalog.get(name)
}

// Protocols lists the catalog in name order.
func Protocols() []Protocol {
	return catalog.all()
}

// CatalogScripts are the scripts of every protocol of the catalog that
// have a fast path, each body once: a lock whose scripts locksim does not
// know in advance (one run through the go-redis bridge) sends the same
// bodies as the library its built-in twin follows, and gets the same
// proven fast paths; any other body runs on the Lua VM.
func CatalogScripts() []sim.Script {
	var out []sim.Script
	seen := map[string]bool{}
	for _, p := range Protocols() {
		for _, s := range p.Scripts {
			if s.FastPath != nil && !seen[s.Source] {
				seen[s.Source] = true
				out = append(out, s)
			}
		}
	}
	return out
}
