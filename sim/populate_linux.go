package sim

import (
	"syscall"
	"unsafe"
)

// populate faults in the whole pages of the n bytes at p in one call
// (MADV_POPULATE_WRITE, Linux 5.14), where first writes would take a
// fault each: the 645 MB trace of a 1,000-client run takes 160,000. A
// hint: an older kernel refuses it and the writes fault as before.
func populate(p unsafe.Pointer, n uintptr) {
	const page = 4 << 10
	start := (uintptr(p) + page - 1) &^ (page - 1)
	end := (uintptr(p) + n) &^ (page - 1)
	if end <= start {
		return
	}
	const madvPopulateWrite = 23
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, start-uintptr(p))), end-start), madvPopulateWrite)
}
