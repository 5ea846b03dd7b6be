package protocols

import (
	"fmt"

	"github.com/locksim/locksim/sim"
)

// uuid draws a version-4 UUID from the process's PRNG stream, so tokens
// are unique and the run stays reproducible.
func uuid(t *sim.Thread) string {
	r := t.Rand()
	a, b := r.Uint64(), r.Uint64()
	a = (a &^ (0xf << 12)) | (0x4 << 12)
	b = (b &^ (0x3 << 62)) | (0x2 << 62)
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x",
		a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}
