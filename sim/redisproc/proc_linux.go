package redisproc

import "syscall"

// childAttr makes the kernel kill redis-server if the process that started
// it dies without running its cleanup (a panic or a test -timeout).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
