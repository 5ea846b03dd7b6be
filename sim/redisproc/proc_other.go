//go:build !linux

package redisproc

import "syscall"

// childAttr has nothing to add outside Linux: Close stops the server.
func childAttr() *syscall.SysProcAttr { return nil }
