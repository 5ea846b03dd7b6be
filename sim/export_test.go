package sim

// SetEventBlock makes the recorder keep n events unpacked, until the
// returned func restores the default: a test can pack a short run, or
// keep a long one unpacked.
func SetEventBlock(n int) (restore func()) {
	old := eventBlock
	eventBlock = n
	return func() { eventBlock = old }
}
