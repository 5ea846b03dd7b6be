package sim

import (
	"container/heap"
	"time"
)

// event is one scheduled step. An event aimed at a process (a timer, a
// reply, a thread wake-up) is held while that process is paused and
// dropped once it has crashed.
type event struct {
	at   time.Duration
	seq  uint64
	proc *Process
	thr  *Thread // a wake-up of this thread: held while it is stalled
	fn   func()
	msg  message // set for a message in flight: fn runs on arrival, unless dropped
}

type eventQueue []*event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(*event)) }
func (q *eventQueue) Pop() any {
	old := *q
	n := len(old)
	e := old[n-1]
	old[n-1] = nil
	*q = old[:n-1]
	return e
}

func (q *eventQueue) push(e *event) { heap.Push(q, e) }
func (q *eventQueue) pop() *event   { return heap.Pop(q).(*event) }
