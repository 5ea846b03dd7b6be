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
// each of them a retry), plus PerContenderWorkSec for each other thread
// and each second of the holder's work (a lock taken by retrying on a
// timer costs every waiter's tries for as long as the holder works). The
// catalog's values are 1.6 to 2 times what runs without faults measured
// on unique-name and lock-set, the costliest workloads, at 2 to 200
// clients, and on lock-set at 10 clients working a whole lease.
type StepCost struct {
	Base, PerContender, PerContenderWorkSec int64
}

// DefaultStepCost is the cost of a protocol that gives none: the largest
// of the catalog's.
var DefaultStepCost = StepCost{Base: redlockSteps.Base, PerContender: redissonSteps.PerContender,
	PerContenderWorkSec: redlockSteps.PerContenderWorkSec}

var (
	// redissonSteps: pub/sub wake-ups, 18 + 2.4 per other client on
	// unique-name, 2 + 3.3 on lock-set (3.8 for the multilock); tryLock's
	// waits, 1.2 per waiter and second of work.
	redissonSteps = StepCost{Base: 100, PerContender: 6, PerContenderWorkSec: 3}
	// redlockSteps: five masters and up to 32 tries, 1,560 at 200 clients;
	// 212 per waiter and second of work (lock-set, 10 clients, 8 s).
	redlockSteps = StepCost{Base: 3200, PerContenderWorkSec: 420}
	// spinSteps: SET NX retried on a timer, at most 71 at 200 clients;
	// at most 2 per waiter and second of work.
	spinSteps = StepCost{Base: 150, PerContenderWorkSec: 4}
	// springSteps: obtain() spins every 100 ms, 159 at 200 clients; 20 per
	// waiter and second of work.
	springSteps = StepCost{Base: 320, PerContenderWorkSec: 40}
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
	if p, err := sc.LookupProtocol(); err == nil && p.Steps != (StepCost{}) {
		cost = p.Steps
	}
	threads := float64(max(sc.Clients, 1)) * float64(max(sc.Threads, 1))
	work := float64(sc.WorkMs) / 1000
	perOp := float64(cost.Base) + (threads-1)*(float64(cost.PerContender)+float64(cost.PerContenderWorkSec)*work)
	return threads * float64(max(sc.Ops, 1)) * perOp
}
