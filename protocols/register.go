package protocols

import (
	"errors"
	"fmt"
)

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
	if _, dup := registry[p.Name]; dup {
		return fmt.Errorf("protocol %s is already registered", p.Name)
	}
	registry[p.Name] = p
	return nil
}
