package protocols

import "github.com/locksim/locksim/sim"

// uuid draws a version-4 UUID from the process's PRNG stream, so tokens
// are unique and the run stays reproducible.
func uuid(t *sim.Thread) string {
	r := t.Rand()
	a, b := r.Uint64(), r.Uint64()
	a = (a &^ (0xf << 12)) | (0x4 << 12)
	b = (b &^ (0x3 << 62)) | (0x2 << 62)
	return formatUUID(a, b)
}

// formatUUID is fmt.Sprintf("%08x-%04x-%04x-%04x-%012x") of a's and b's
// fields, in one allocation.
func formatUUID(a, b uint64) string {
	var s [36]byte
	putHex(s[0:8], a>>32)
	putHex(s[9:13], a>>16)
	putHex(s[14:18], a)
	putHex(s[19:23], b>>48)
	putHex(s[24:36], b)
	s[8], s[13], s[18], s[23] = '-', '-', '-', '-'
	return string(s[:])
}

// putHex writes the low 4*len(dst) bits of v as lower-case hex digits.
func putHex(dst []byte, v uint64) {
	const digits = "0123456789abcdef"
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = digits[v&0xf]
		v >>= 4
	}
}
