package sim

// SetRetireDisarmed switches disarmed timers between sharing their
// thread's ghost (on) and keeping their own no-op event, and returns the
// previous setting.
func SetRetireDisarmed(on bool) bool {
	old := retireDisarmed
	retireDisarmed = on
	return old
}
