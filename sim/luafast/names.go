package luafast

import "strings"

// cmdName is a command name as a script spells it, upper-cased and
// classified.
type cmdName struct {
	name, upper string
	class       int
}

// nameCache holds the first command names a vm's scripts called. Scripts
// spell names as constants, whose strings compare by pointer, so a short
// scan beats a map's hashing.
type nameCache struct {
	hot [24]cmdName
	n   int
}

// lookup returns name upper-cased and its class (see nestedClass).
func (c *nameCache) lookup(name string) (upper string, class int) {
	for i := range c.hot[:c.n] {
		if h := &c.hot[i]; h.name == name {
			return h.upper, h.class
		}
	}
	upper = strings.ToUpper(name)
	class = nestedClass[upper]
	if c.n < len(c.hot) {
		c.hot[c.n] = cmdName{name, upper, class}
		c.n++
	}
	return upper, class
}
