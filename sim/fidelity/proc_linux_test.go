package fidelity

import "syscall"

// childAttr makes the kernel kill redis-server if the test binary dies
// without running its cleanup (a panic or a -timeout).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
