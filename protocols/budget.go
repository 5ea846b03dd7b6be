package protocols

// The event budget a scenario gets when it sets none: what its operations
// cost its protocol (Protocol.Steps) at the number of threads contending,
// at least DefaultEventBudget and at most ScaledEventBudgetCap. It is a
// function of the scenario, so a run that exceeds it does so on every
// machine.
const (
	DefaultEventBudget   = 1_000_000
	ScaledEventBudgetCap = 20_000_000
)

// StepCost bounds the scheduler steps one operation takes without faults:
// Base, plus PerContender for each other thread contending for the lock
// (a release that wakes every waiter, as Redisson's pub/sub does, costs
// each of them a retry). The catalog's values are 1.6 to 2 times what
// runs without faults measured on unique-name and lock-set, the costliest
// workloads, at 2 to 200 clients.
type StepCost struct {
	Base, PerContender int64
}

// DefaultStepCost is the cost of a protocol that gives none: the largest
// of the catalog's.
var DefaultStepCost = StepCost{Base: redlockSteps.Base, PerContender: redissonSteps.PerContender}

var (
	// redissonSteps: pub/sub wake-ups, 18 + 2.4 per other client on
	// unique-name, 2 + 3.3 on lock-set (3.8 for the multilock).
	redissonSteps = StepCost{Base: 100, PerContender: 6}
	// redlockSteps: five masters and up to 32 tries, 1,560 at 200 clients.
	redlockSteps = StepCost{Base: 3200}
	// spinSteps: SET NX retried on a timer, at most 71 at 200 clients.
	spinSteps = StepCost{Base: 150}
)

// EventBudget is how many simulator events the run may take before it
// stops as over budget: max_events, else the scaled default above.
func (sc Scenario) EventBudget() int64 {
	if sc.MaxEvents != 0 {
		return sc.MaxEvents
	}
	return int64(min(max(sc.stepsNeeded(), DefaultEventBudget), ScaledEventBudgetCap))
}

// stepsNeeded is what the scenario's operations cost its protocol.
func (sc Scenario) stepsNeeded() float64 {
	cost := DefaultStepCost
	if p, err := Lookup(sc.Protocol); err == nil && p.Steps != (StepCost{}) {
		cost = p.Steps
	}
	threads := float64(max(sc.Clients, 1)) * float64(max(sc.Threads, 1))
	return threads * float64(max(sc.Ops, 1)) * (float64(cost.Base) + float64(cost.PerContender)*(threads-1))
}
