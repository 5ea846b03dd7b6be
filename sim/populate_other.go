//go:build !linux

package sim

import "unsafe"

func populate(unsafe.Pointer, uintptr) {}
