package model

import "testing"

// seq numbers ground-truth events in order, as the checker does.
func seq(ins ...LeaseInput) []Op {
	out := make([]Op, len(ins))
	for i, in := range ins {
		out[i] = op(0, int64(2*i), int64(2*i+1), in, nil)
	}
	return out
}

func lease(k LeaseKind, owner string) LeaseInput {
	return LeaseInput{Kind: k, Site: "redis", Key: "k", Owner: owner}
}

func TestLeaseMutex(t *testing.T) {
	runCases(t, LeaseMutex(), []historyCase{
		{"honest expiry then a new grant", seq(
			lease(LeaseGrant, "a"), lease(LeaseEnd, "a"), lease(LeaseGrant, "b"),
		), true},
		{"key lost in failover, new grant inside the lease", seq(
			lease(LeaseGrant, "a"), lease(LeaseLost, "a"), lease(LeaseGrant, "b"),
		), false},
		{"key lost, new grant after the deadline", seq(
			lease(LeaseGrant, "a"), lease(LeaseLost, "a"), lease(LeaseDeadline, "a"), lease(LeaseGrant, "b"),
		), true},
		{"deadline of a grant that ended honestly is a no-op", seq(
			lease(LeaseGrant, "a"), lease(LeaseEnd, "a"), lease(LeaseDeadline, "a"), lease(LeaseGrant, "b"),
		), true},
		{"two grants at once (split brain)", seq(
			lease(LeaseGrant, "a"), lease(LeaseGrant, "b"),
		), false},
		{"renewal by the owner's process", seq(
			lease(LeaseGrant, "c1/t1"), lease(LeaseRenew, "c1/watchdog"), lease(LeaseEnd, "c1/t1"),
		), true},
		{"renewal by another process", seq(
			lease(LeaseGrant, "c2/t1"), lease(LeaseRenew, "c1/daemon"),
		), false},
		{"other sites are independent", seq(
			lease(LeaseGrant, "a"),
			LeaseInput{Kind: LeaseGrant, Site: "redis-2", Key: "k", Owner: "b"},
		), true},
	})
}
