package protocols

import (
	"strconv"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// StockKey is the protected counter of seed 001.
const StockKey = "goods:001"

func init() {
	// Seed 001, GoodController.buy(): lock, GET goods:001, SET stock-1 if
	// positive, release. A refused lock returns "Falha ao adquirir o lock";
	// the user tries again after RetryMs.
	registerWorkload(Workload{
		Name:    "stock",
		Source:  "seed 001 (GoodController.buy)",
		Summary: "decrement goods:001 under the lock; lost updates and oversold units are the damage",
		WorkMs:  0,
		Setup:   stockSetup,
		Thread:  stockThread,
	})
}

func stockSetup(w *sim.World, sc Scenario) {
	n := w.Node(DataNode(sc))
	n.Miniredis().Set(StockKey, strconv.Itoa(sc.Stock))
	w.Record(trace.Workload(n.Name, StockKey, "initial stock "+strconv.Itoa(sc.Stock)))
}

// BuyResult renders a buy's outcome: sold or sold out, with the stock read.
func BuyResult(sold bool, read int) string {
	if sold {
		return "sold@" + strconv.Itoa(read)
	}
	return "soldout@" + strconv.Itoa(read)
}

func stockThread(t *sim.Thread, r *Runner) {
	for i := 0; i < r.Sc.Ops; i++ {
		r.Think(t)
		for attempt := 0; attempt < r.Sc.Attempts; attempt++ {
			lock := r.Lock("redisLock")
			ok, _ := lock.Acquire(t)
			if !ok {
				r.Retry(t)
				continue
			}
			buy(t, r, lock)
			// The Redisson version of buy() releases with
			// if (lock.isHeldByCurrentThread()) lock.unlock().
			releaseIfHeld(t, lock)
			break
		}
	}
}

// buy is buy()'s critical section: read the stock, work, write it less
// one if positive.
func buy(t *sim.Thread, r *Runner, lock Lock) {
	op := t.Invoke(model.OpBuy, StockKey, tokenValue(lock))
	v, err := getData(t, r.Env.Data, StockKey)
	stock, _ := strconv.Atoi(v)
	r.Work(t)
	switch {
	case err != nil:
		t.Return(op, model.ResError+": "+err.Error())
	case stock > 0:
		if rejected, err := setData(t, r.Env.Data, StockKey, strconv.Itoa(stock-1), lock); err != nil {
			t.Return(op, model.ResError+": "+err.Error())
		} else if rejected {
			t.Return(op, model.ResRejected)
		} else {
			t.Return(op, BuyResult(true, stock))
		}
	default:
		t.Return(op, BuyResult(false, stock))
	}
}
