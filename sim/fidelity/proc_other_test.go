//go:build !linux

package fidelity

import "syscall"

func childAttr() *syscall.SysProcAttr { return nil }
